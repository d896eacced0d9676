// Package residency gives back resident pages of the process that the
// kernel reads in again from their file when they are next used: the
// program's code and read-only data, and read-only data embedded in it.
// Such pages count in the process's resident set (RssFile) once touched
// and stay there, although a long run may never touch most of them again:
// those of start-up (package initialisation, flag parsing, loading the
// data) while it trains, for instance. Giving them back costs a minor page
// fault for each page used again.
//
// Only file mappings that are never written are advised: MADV_DONTNEED on
// a page the process has written would lose the write (a private file
// mapping's page is read again from the file, an anonymous one comes back
// zeroed). On systems other than Linux the functions do nothing.
package residency
