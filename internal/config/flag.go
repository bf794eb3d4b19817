package config

import (
	"fmt"
	"strconv"
)

// Flag is a yes/no setting whose absence means its default, such as
// mcp_servers.NAME.enabled (true unless set to false). The zero Flag is
// unset.
type Flag int8

// The values of a set Flag.
const (
	FlagTrue  Flag = 1
	FlagFalse Flag = -1
)

// Or returns the flag's value, or def when it is unset.
func (f Flag) Or(def bool) bool {
	switch f {
	case FlagTrue:
		return true
	case FlagFalse:
		return false
	}
	return def
}

// UnmarshalText reads true/false (and the other spellings strconv accepts).
func (f *Flag) UnmarshalText(b []byte) error {
	if string(b) == "unset" || len(b) == 0 {
		*f = 0
		return nil
	}
	v, err := strconv.ParseBool(string(b))
	if err != nil {
		return fmt.Errorf("%q is not accepted; use true or false", b)
	}
	*f = FlagFalse
	if v {
		*f = FlagTrue
	}
	return nil
}

// MarshalText writes true, false, or "unset" for a flag not set.
func (f Flag) MarshalText() ([]byte, error) {
	switch f {
	case FlagTrue:
		return []byte("true"), nil
	case FlagFalse:
		return []byte("false"), nil
	}
	return []byte("unset"), nil
}
