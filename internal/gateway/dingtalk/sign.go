package dingtalk

import (
	"crypto/hmac"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hermes-go/hermes/internal/notify"
)

// SignTolerance is how far a callback's timestamp may be from now.
const SignTolerance = time.Hour

// errSign is a callback whose signature does not hold; its text names
// no secret and no signature.
var errSign = errors.New("the sign header does not match the timestamp signed with the app secret")

// verify checks a callback's timestamp and sign headers at now. The
// signature covers only the timestamp, so the tolerance is what bounds
// how long a seen signature can be replayed.
func verify(timestamp, sign, secret string, now time.Time) error {
	if timestamp == "" || sign == "" {
		return errors.New("the timestamp and sign headers are both needed")
	}
	ms, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil || ms <= 0 {
		return fmt.Errorf("the timestamp header %.20q is not milliseconds since 1970", timestamp)
	}
	skew := now.Sub(time.UnixMilli(ms))
	if skew > SignTolerance || skew < -SignTolerance {
		return fmt.Errorf("the timestamp %d is %s from now; DingTalk's are within %s", ms, skew.Round(time.Second), SignTolerance)
	}
	got, err := base64.StdEncoding.DecodeString(sign)
	if err != nil {
		return errSign
	}
	// DingTalk signs callbacks as custom robots sign their sends:
	// base64(HMAC-SHA256(key = secret, timestamp + "\n" + secret)).
	want, _ := base64.StdEncoding.DecodeString(notify.DingTalkSign(timestamp, secret))
	if !hmac.Equal(got, want) {
		return errSign
	}
	return nil
}
