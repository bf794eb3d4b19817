// Package filelock serializes the processes that read, change and write
// back one small file (MEMORY.md, the skills' usage record): an exclusive
// lock on an open file, released when it is closed or the process dies.
package filelock
