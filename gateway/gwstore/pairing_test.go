package gwstore

import (
	"testing"
	"time"
)

func TestShort(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Hour: "1h", 10 * time.Minute: "10m", 90 * time.Minute: "1h30m", 30 * time.Second: "30s", 0: "0s"} {
		if got := short(d); got != want {
			t.Errorf("short(%s) = %q, want %q", d, got, want)
		}
	}
}
