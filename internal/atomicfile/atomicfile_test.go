package atomicfile

import (
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A committed file replaces the old one; an aborted or failed one leaves
// it as it was; no temporary file stays behind either way.
func TestWholeOrNotAtAll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	os.WriteFile(path, []byte("old"), 0o644)
	if err := WriteFile(path, func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("disk full") }); err == nil {
		t.Error("a failed write reported success")
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "dropped")
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed write and an abort: %q", b)
	}
	if err := WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("after a commit: %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := Create(dir); err == nil {
		t.Error("a directory accepted as a file")
	}
}

// A symbolic link is written through (its target replaced whole, the link
// kept); a character device and a named pipe are written in place, never
// replaced; a pipe nobody reads and a socket are refused.
func TestNonRegularPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(path, text string) error {
		return WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err })
	}

	target := filepath.Join(dir, "target.json")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("target.json", link); err != nil {
		t.Fatal(err)
	}
	if err := write(link, "new"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the link's target holds %q", b)
	}
	dangling := filepath.Join(dir, "dangling.json")
	os.Symlink(filepath.Join(dir, "made.json"), dangling)
	if err := write(dangling, "made"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.json")); string(b) != "made" {
		t.Errorf("a dangling link's target holds %q", b)
	}

	// A character device made here: /dev/null's numbers.
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, (1<<8)|3); err != nil {
		t.Logf("mknod (needs root): %v; the device case is checked on the standard /dev/null's kind alone", err)
	} else {
		if err := write(null, "into the device"); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Lstat(null); st.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("the device was replaced by %v", st.Mode())
		}
		full := filepath.Join(dir, "full")
		syscall.Mknod(full, syscall.S_IFCHR|0o666, (1<<8)|7)
		if err := write(full, "into /dev/full"); err == nil {
			t.Error("writing a full device reported success")
		}
		if st, _ := os.Lstat(full); st.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("the full device was replaced by %v", st.Mode())
		}
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := write(fifo, "nobody reads"); err == nil || !strings.Contains(err.Error(), "nobody reads") {
		t.Errorf("a pipe with no reader: %v", err)
	}
	got := make(chan string, 1)
	// The reader opens first; a writer of the test's own holds the pipe
	// open until the write under test is done, so the reader cannot see
	// the end before it starts.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	hold, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	if err := write(fifo, "through the pipe"); err != nil {
		t.Fatal(err)
	}
	hold.Close()
	select {
	case s := <-got:
		if s != "through the pipe" {
			t.Errorf("the pipe's reader got %q", s)
		}
	case <-time.After(time.Minute):
		t.Fatal("the pipe's reader got nothing in a minute")
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced by %v", st.Mode())
	}

	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := write(sock, "x"); err == nil || !strings.Contains(err.Error(), "socket") {
		t.Errorf("a socket: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A file committed with mode 0600 is never readable by others, not even
// before it is in place.
func TestCreateMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secret.yaml")
	f, err := CreateMode(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := f.Stat(); st.Mode().Perm()&0o077 != 0 {
		t.Errorf("the content being written has mode %v", st.Mode().Perm())
	}
	io.WriteString(f, "password")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
}

// Two paths name one file: as written, through ./, through a link to a
// file not made yet (a client's result linked to the merged one), through
// a linked directory, through a hard link; other files do not.
func TestSamePath(t *testing.T) {
	dir := t.TempDir()
	in := func(f string) string { return filepath.Join(dir, f) }
	if err := os.WriteFile(in("a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("r.json", in("client.json")); err != nil { // r.json does not exist yet
		t.Fatal(err)
	}
	if err := os.Symlink(dir, in("linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in("a"), in("hard")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		paths []string
		same  bool
	}{
		{[]string{in("r.json"), in("./r.json")}, true},
		{[]string{in("client.json"), in("r.json")}, true},
		{[]string{in("r.json"), in("linkdir/r.json")}, true},
		{[]string{in("a"), in("hard")}, true},
		{[]string{in("r.json"), "", in("b")}, false},
		{[]string{in("client.json"), in("b")}, false},
	} {
		if _, _, got := SamePath(c.paths); got != c.same {
			t.Errorf("SamePath(%q) = %v, want %v", c.paths, got, c.same)
		}
	}
}

// A write that fails fails Commit, also when the writer dropped its error
// (runtime/trace does): a pipe whose reader left after 4 KiB, as a full
// disk would leave a trace cut short and called written.
func TestDroppedWriteErrorFailsCommit(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Create(fifo)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 4096))
	io.ReadFull(r, make([]byte, 4096))
	r.Close() // the reader leaves: every later write fails (EPIPE)
	for range 4 {
		f.Write(make([]byte, 4096)) // its error dropped, as trace.Start's writer does
	}
	if err := f.Commit(); err == nil || !errors.Is(err, syscall.EPIPE) {
		t.Errorf("a pipe whose reader left, its write errors dropped: Commit %v", err)
	}

	// A regular file: the failed write keeps the path as it was.
	path := filepath.Join(dir, "r.json")
	os.WriteFile(path, []byte("old"), 0o644)
	g, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	g.WriteString("half")
	g.File.Close() // every later write fails, as on a full disk
	g.Write([]byte("dropped"))
	if err := g.Commit(); err == nil {
		t.Error("a file whose write failed was committed")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed write: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A file is being written from its first write to its Commit or Abort;
// RemoveTemporary removes what is not committed, each path keeping what
// it held.
func TestWritingAndRemoveTemporary(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("before"), 0o644)
	fa, err := Create(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := Create(b)
	if err != nil {
		t.Fatal(err)
	}
	if Writing() {
		t.Error("created, not written: said to be written")
	}
	fa.WriteString("after")
	if !Writing() {
		t.Error("written to: not said to be written")
	}
	if n := RemoveTemporary(); n != 2 {
		t.Errorf("removed %d temporary files, want 2", n)
	}
	if err := fa.Commit(); err == nil {
		t.Error("a commit after its temporary file was removed succeeded")
	}
	fb.Abort()
	if Writing() {
		t.Error("committed and aborted: still said to be written")
	}
	if got, _ := os.ReadFile(a); string(got) != "before" {
		t.Errorf("a holds %q", got)
	}
	if _, err := os.Stat(b); err == nil {
		t.Error("b exists")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// Append writes after what a file holds (created when missing), writes a
// pipe someone reads in place, and refuses a pipe nobody reads (its open
// waited for a reader without end), a directory and a socket.
func TestAppend(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "raw.txt")
	for _, s := range []string{"a\n", "b\n"} {
		f, err := Append(file)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	if b, _ := os.ReadFile(file); string(b) != "a\nb\n" {
		t.Errorf("appended: %q", b)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Append(fifo); err == nil || !strings.Contains(err.Error(), "a named pipe that nobody reads") {
		t.Errorf("a pipe nobody reads: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if f, err := Append(fifo); err != nil {
		t.Errorf("a pipe someone reads: %v", err)
	} else {
		f.Close()
	}
	if _, err := Append(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	if _, err := Append(sock); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a socket: %v", err)
	}
	if Writing() {
		t.Error("appended files said to be written as outputs")
	}
}

// A process exiting without waiting (a second Ctrl-C) leaves no lock
// file beside its outputs: RemoveTemporary removes those it holds, and
// those released before are gone already.
func TestRemoveTemporaryRemovesLocks(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.csv"), filepath.Join(dir, "c.json")
	releaseC, err := Lock([]string{c})
	if err != nil {
		t.Fatal(err)
	}
	releaseC()
	release, err := Lock([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if locks, _ := filepath.Glob(filepath.Join(dir, ".*.lock")); len(locks) != 2 {
		t.Fatalf("lock files %v, want those of a.json and b.csv", locks)
	}
	if n := RemoveTemporary(); n != 2 {
		t.Errorf("removed %d files, want the 2 lock files", n)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("left beside the outputs: %v", left)
	}
	release() // the exit that did not come: nothing to remove, no error
	if n := RemoveTemporary(); n != 0 {
		t.Errorf("after the release, removed %d", n)
	}
}

// A pipe the process holds, named through a directory that is a link to
// /proc/self/fd, as /dev/fd is (bash's >(cmd), 3>&1): written in place.
// Its own link reads pipe:[N], which was joined to the directory and
// refused ("no such file or directory").
func TestPipeThroughALinkedFdDirectory(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd := filepath.Join(t.TempDir(), "fd")
	if err := os.Symlink("/proc/self/fd", fd); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	path := filepath.Join(fd, fmt.Sprint(w.Fd()))
	if err := WriteFile(path, func(out io.Writer) error { _, err := io.WriteString(out, "through the pipe"); return err }); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	w.Close()
	if b := <-got; string(b) != "through the pipe" {
		t.Errorf("the pipe's reader got %q", b)
	}
}

// OpenOwn writes only a file of its own or a character device: a link
// to a user's file (symbolic or hard), a named pipe (unless asked) and a
// block device are refused, the user's file untouched; a character
// device is written in place, through a link too; a pipe nobody reads is
// refused rather than waited for.
func TestOpenOwn(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users.txt")
	if err := os.WriteFile(users, []byte("the user's own"), 0o644); err != nil {
		t.Fatal(err)
	}
	own := Own{What: "a log this run writes"}
	refused := func(name, want string, o Own) {
		t.Helper()
		if f, err := OpenOwn(filepath.Join(dir, name), o); err == nil || !strings.Contains(err.Error(), want) {
			if f != nil {
				f.Close()
			}
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	os.Symlink(users, filepath.Join(dir, "sym"))
	refused("sym", "a symbolic link, not to a character device", own)
	os.Link(users, filepath.Join(dir, "hard"))
	refused("hard", "a file of 2 names (a hard link)", own)
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600)
	refused("fifo", "a named pipe, not a regular file", own)
	refused("fifo", "a named pipe that nobody reads", Own{What: "a log", Pipes: true})
	if b, _ := os.ReadFile(users); string(b) != "the user's own" {
		t.Errorf("the user's file: %q", b)
	}
	if err := syscall.Mknod(filepath.Join(dir, "blk"), syscall.S_IFBLK|0o600, 7<<8|255); err == nil { // a loop device's node, made here
		refused("blk", "a block device, not a regular file", own)
	} else {
		t.Logf("no block device node made (%v): not checked", err)
	}
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o600, 1<<8|3); err == nil { // /dev/null's numbers, made here
		os.Symlink(filepath.Join(dir, "null"), filepath.Join(dir, "to-null"))
		for _, name := range []string{"null", "to-null"} {
			f, err := OpenOwn(filepath.Join(dir, name), own)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if _, err := f.WriteString("x"); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			f.Close()
		}
	} else {
		t.Logf("no character device node made (%v): not checked", err)
	}
	mine := filepath.Join(dir, "mine.log")
	os.WriteFile(mine, []byte("before"), 0o644)
	f, err := OpenOwn(mine, own)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("after")
	f.Close()
	if b, _ := os.ReadFile(mine); string(b) != "after" {
		t.Errorf("its own file: %q, want it emptied first", b)
	}
}
