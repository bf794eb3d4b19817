package telegram_test

import "time"

const (
	second = time.Second
	minute = time.Minute
)
