package writer

import (
	"syscall"
	"testing"
)

// TestAnyNameBelowOfUnknownTypes: on a file system that gives no entry a
// type, the walk tells directories by lstat and answers as before.
func TestAnyNameBelowOfUnknownTypes(t *testing.T) {
	unknownTypes = true
	defer func() { unknownTypes = false }()
	t.Run("answers", TestAnyNameBelowAnswersAsWalkDir)
	t.Run("reads", TestAnyNameBelowReadsEveryRecord)
	t.Run("no tree", TestAnyNameBelowOfNoTree)
}

// TestIgnoringEINTR: an interrupted call is made again until it answers.
func TestIgnoringEINTR(t *testing.T) {
	calls := 0
	n, err := ignoringEINTR(func() (int, error) {
		calls++
		if calls < 3 {
			return -1, syscall.EINTR
		}
		return 7, nil
	})
	if n != 7 || err != nil || calls != 3 {
		t.Fatalf("n=%d err=%v after %d calls", n, err, calls)
	}
	if _, err := ignoringEINTR(func() (int, error) { return -1, syscall.EACCES }); err != syscall.EACCES {
		t.Fatalf("another error: %v", err)
	}
}
