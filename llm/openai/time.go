package openai

import "time"

func unixTime(sec int64) time.Time { return time.Unix(sec, 0).UTC() }
