package writer

// ErrKilled, returned by a test hook, stops Apply or Recover right there,
// as SIGKILL would: no roll back, no clean-up.
var ErrKilled = errKilled

// SetTestHook installs, for tests of other packages (the CLI's kill tests
// of mv), a function called before each change Apply and Recover make on
// disk, with the change ("create", "rename", "remove", "journal") and its
// path; an error it returns is that change's error. It returns the
// function that removes it. Never called outside tests.
func SetTestHook(f func(op, path string) error) (reset func()) {
	hook = f
	return func() { hook = nil }
}
