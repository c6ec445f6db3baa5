package filelock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/opforge/opforge/generators/atomicfile"
)

// Lock takes the exclusive lock on path (created if missing). When another
// process holds it, waiting is called once with that process's pid (or ""
// when unknown) and Lock blocks until the lock is free. The returned
// function releases it.
func Lock(path string, waiting func(holder string)) (unlock func(), err error) {
	return LockContext(context.Background(), path, waiting)
}

// pollEvery is how often a waiting LockContext tries again: a lock wait
// in the kernel cannot be interrupted by a context, so a cancellable wait
// polls.
const pollEvery = 50 * time.Millisecond

// LockContext is Lock that gives up, with ctx's error, when ctx ends
// before the lock is free.
func LockContext(ctx context.Context, path string, waiting func(holder string)) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := tryLock(f, exclusive); err != nil {
		if !wouldBlock(err) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if waiting != nil {
			data, _ := os.ReadFile(path)
			waiting(strings.TrimSpace(string(data)))
		}
		if err := waitFor(ctx, f); err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
	}
	// Say who holds it, for the message of the next one to wait.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		_ = unlockFile(f)
		f.Close()
	}, nil
}

// waitFor takes the lock on f once it is free, blocking in the kernel when
// ctx can never end and polling otherwise.
func waitFor(ctx context.Context, f *os.File) error {
	if ctx.Done() == nil {
		return waitLock(f, exclusive)
	}
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		err := tryLock(f, exclusive)
		if !wouldBlock(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Hold takes the exclusive lock on path (created if missing), for a
// process that marks what it owns as live while it runs (Held), the kernel
// releasing the mark however it ends. path must be the caller's own (a
// name no other process uses): Hold waits out Held's momentary probes
// only.
func Hold(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := waitLock(f, exclusive); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() {
		_ = unlockFile(f)
		f.Close()
	}, nil
}

// Held reports whether a process holds the lock on path now. A missing
// file is not held; nothing is created. A killed process, a zombie
// included, holds nothing: the kernel released its locks with its files.
func Held(path string) bool {
	// Opened without blocking and only as a regular file: a FIFO with a
	// lock file's name would otherwise wait for a writer forever.
	f, _, err := atomicfile.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := tryLock(f, shared); err != nil {
		return wouldBlock(err)
	}
	_ = unlockFile(f)
	return false
}

// mode is the kind of lock taken: many processes may hold a shared one,
// one an exclusive one.
type mode int

const (
	shared mode = iota
	exclusive
)
