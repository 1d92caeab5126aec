package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Own says how OpenOwn opens a file a process writes as it goes.
type Own struct {
	// What the file is, in errors ("a log this run writes").
	What string
	// Append writes after what the file holds; otherwise it is emptied,
	// once it is known to be the caller's own.
	Append bool
	// Pipes writes a named pipe in place (one nobody reads is refused);
	// otherwise a pipe is refused.
	Pipes bool
}

// OpenOwn opens path for writing as it goes (a log, a lock), made when
// it is not there. Unlike Create it never writes through a link to a
// file: a link, symbolic or hard, planted there to a user's file had it
// emptied. A character device is written in place, through a symbolic
// link too (/dev/full standing in for a full disk, /dev/null); a named
// pipe as o says; a block device, a socket or a directory is refused,
// as by Create. Its errors name path.
func OpenOwn(path string, o Own) (*os.File, error) {
	if lst, err := os.Lstat(path); err == nil {
		switch m := lst.Mode(); {
		case m&fs.ModeSymlink != 0:
			st, err := os.Stat(path)
			if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
				return nil, fmt.Errorf("%s: a symbolic link, not to a character device: not %s: remove it", path, o.What)
			}
			return os.OpenFile(path, os.O_WRONLY|appendFlag(o), 0) // a device, in place
		case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0, m&fs.ModeSocket != 0, m.IsDir(), m&fs.ModeNamedPipe != 0 && !o.Pipes:
			return nil, fmt.Errorf("%s: %v: not %s: remove it", path, Regular(lst), o.What) // refused unopened
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|appendFlag(o)|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	switch {
	case errors.Is(err, syscall.ENXIO):
		return nil, fmt.Errorf("%s: a named pipe that nobody reads", path)
	case errors.Is(err, syscall.ELOOP): // made a link since
		return nil, fmt.Errorf("%s: a symbolic link, not %s: remove it", path, o.What)
	case err != nil:
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = Regular(st)
		switch m := st.Mode(); {
		case m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0 && o.Pipes:
			return f, nil // in place
		case err == nil && !o.Append:
			err = f.Truncate(0)
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %v: not %s: remove it", path, err, o.What)
	}
	return f, nil
}

// Regular refuses st unless it is a regular file of one name: not a pipe
// or a device, not a hard link to a file elsewhere.
func Regular(st fs.FileInfo) error {
	switch m := st.Mode(); {
	case m.IsRegular():
	case m&fs.ModeNamedPipe != 0:
		return errors.New("a named pipe, not a regular file")
	case m&fs.ModeCharDevice != 0:
		return errors.New("a character device, not a regular file")
	case m.IsDir():
		return errors.New("a directory, not a regular file")
	default:
		return fmt.Errorf("%s, not a regular file", kind(m))
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Nlink > 1 {
		return fmt.Errorf("a file of %d names (a hard link)", sys.Nlink)
	}
	return nil
}

func appendFlag(o Own) int {
	if o.Append {
		return os.O_APPEND
	}
	return 0
}
