// Package binrec writes and reads opforge's own state records (the gen
// cache, its section store, a build's no-op record) as length-prefixed
// strings and varints. They are read at the start of the commands that
// must be fastest (an incremental gen, a no-op build), where decoding
// JSON by reflection was a large share of the work, and encoding/gob's
// package initialization would run in every command.
package binrec
