package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err     error
		runDone bool
		want    Status
	}{
		{nil, false, OK},
		{errors.New("boom"), false, Error},
		{fmt.Errorf("redis: read k: %w", ErrNotFound), false, NotFound},
		{fmt.Errorf("dynamodb: %w", ErrThrottled), false, Throttled},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), false, Timeout},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), true, Canceled},
		{fmt.Errorf("x: %w", context.Canceled), true, Canceled},
		{ErrServiceUnavailable, false, ServiceUnavailable},
		{fmt.Errorf("redis: %w: i/o timeout", ErrTimeout), true, Canceled},
		{fmt.Errorf("x: %w", ErrNotFound), true, NotFound},
	} {
		if got := Classify(c.err, c.runDone); got != c.want {
			t.Errorf("Classify(%v, %v) = %s, want %s", c.err, c.runDone, got, c.want)
		}
	}
	for s := Status(0); s < NumStatus; s++ {
		if back, ok := ParseStatus(s.String()); !ok || back != s {
			t.Errorf("status %d does not round-trip its name %q", s, s)
		}
	}
}

func TestRecordReuseDoesNotAllocate(t *testing.T) {
	var r Record
	name, val := []byte("field0"), []byte("value")
	fill := func() {
		r.Reset()
		for i := 0; i < 10; i++ {
			r.AddBytes(name, val)
		}
	}
	fill()
	if n := testing.AllocsPerRun(100, fill); n != 0 {
		t.Errorf("refilling a record allocates %v times", n)
	}
	if v, ok := r.Get("field0"); !ok || string(v) != "value" || r.Len() != 10 {
		t.Errorf("Get = %q %v, len %d", v, ok, r.Len())
	}
	var s RecordSet
	s.Next().Add("a", []byte("1"))
	s.Next().Add("b", []byte("2"))
	s.Reset()
	if s.Len() != 0 || s.Next().Len() != 0 {
		t.Error("reset set still holds rows")
	}
}

func TestConnectionLost(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{refused, true},
		{fmt.Errorf("couchbase: update k: %w", io.EOF), true},
		{fmt.Errorf("read message: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("write: %w", syscall.EPIPE), true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{net.ErrClosed, true},
		{timeout, false},
		{context.DeadlineExceeded, false},
		{errors.New("syntax error"), false},
		{ErrNotFound, false},
	} {
		if got := ConnectionLost(c.err); got != c.want {
			t.Errorf("ConnectionLost(%v) = %v", c.err, got)
		}
	}
}

// A set holds no row past its limit: Next gives the spare record and Over
// says so until the next Reset, which keeps the limit.
func TestRecordSetLimit(t *testing.T) {
	var s RecordSet
	s.Limit(2)
	for i := 0; i < 5; i++ {
		s.Next().SetKey([]byte{byte('a' + i)})
	}
	if s.Len() != 2 || !s.Over() || string(s.Row(1).Key) != "b" {
		t.Fatalf("len %d, over %v, row 1 %q", s.Len(), s.Over(), s.Row(1).Key)
	}
	s.Reset()
	s.Next()
	s.Next()
	if s.Over() || s.Len() != 2 {
		t.Fatalf("after Reset: len %d, over %v", s.Len(), s.Over())
	}
	s.Next()
	if !s.Over() {
		t.Fatal("the limit was not kept through Reset")
	}
	s.Limit(0)
	s.Reset()
	for i := 0; i < 5; i++ {
		s.Next()
	}
	if s.Over() || s.Len() != 5 {
		t.Fatalf("no limit: len %d, over %v", s.Len(), s.Over())
	}
}
