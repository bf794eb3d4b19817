// Package resident gives back the pages a long-running hermes touched
// only while it started.
//
// Starting runs the initialisation of some two hundred packages, each of
// which touches code and constant data of the binary; the kernel maps
// 64 KiB around every first touch. Those pages are clean copies of the
// executable, shared with the page cache, but they count in the process's
// resident set (VmRSS, as RssFile) for as long as it runs: about 20 MB of
// an idle `hermes serve`, most of it code that never runs again. Trim
// unmaps them from the process; the kernel keeps them in its cache, and
// the few a running serve needs come back on their next use, from memory,
// with a minor fault.
package resident
