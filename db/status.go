package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// Status is the outcome of one operation. The names are YCSB's Status names
// (plus TIMEOUT, THROTTLED and CANCELED), so reports read like YCSB's.
type Status uint8

// Outcomes. OK and BatchedOK are successes, everything else is a failure.
const (
	OK Status = iota
	BatchedOK
	NotFound
	Error
	Timeout
	Throttled
	UnexpectedState
	BadRequest
	Forbidden
	ServiceUnavailable
	NotImplemented
	Canceled
	NumStatus // number of statuses, for arrays indexed by Status
)

var statusNames = [NumStatus]string{
	OK:                 "OK",
	BatchedOK:          "BATCHED_OK",
	NotFound:           "NOT_FOUND",
	Error:              "ERROR",
	Timeout:            "TIMEOUT",
	Throttled:          "THROTTLED",
	UnexpectedState:    "UNEXPECTED_STATE",
	BadRequest:         "BAD_REQUEST",
	Forbidden:          "FORBIDDEN",
	ServiceUnavailable: "SERVICE_UNAVAILABLE",
	NotImplemented:     "NOT_IMPLEMENTED",
	Canceled:           "CANCELED",
}

func (s Status) String() string {
	if s < NumStatus {
		return statusNames[s]
	}
	return fmt.Sprintf("STATUS_%d", uint8(s))
}

// IsOK reports whether s counts as a success (OK or BATCHED_OK), as YCSB's
// Status.isOk does.
func (s Status) IsOK() bool { return s == OK || s == BatchedOK }

// ParseStatus returns the status named name.
func ParseStatus(name string) (Status, bool) {
	for i, n := range statusNames {
		if n == name {
			return Status(i), true
		}
	}
	return 0, false
}

// ErrFatal marks an error after which the store cannot go on (an
// embedded store out of disk): the operation counts as ERROR and the run
// ends, failed, with the results measured so far.
var ErrFatal = errors.New("the store cannot go on")

// Sentinel errors a binding returns (or wraps) to report an outcome other
// than ERROR. errors.Is works through wrapping, so
// fmt.Errorf("redis: read %s: %w", key, db.ErrNotFound) counts as NOT_FOUND.
var (
	ErrNotFound           = &statusError{NotFound}
	ErrThrottled          = &statusError{Throttled}
	ErrUnexpectedState    = &statusError{UnexpectedState}
	ErrBadRequest         = &statusError{BadRequest}
	ErrForbidden          = &statusError{Forbidden}
	ErrServiceUnavailable = &statusError{ServiceUnavailable}
	ErrNotImplemented     = &statusError{NotImplemented}
	ErrTimeout            = &statusError{Timeout}
)

type statusError struct{ s Status }

func (e *statusError) Error() string { return e.s.String() }

// StatusOf returns the error's status; any error that carries none is ERROR.
func (e *statusError) StatusOf() Status { return e.s }

// Statuser is implemented by errors that know their outcome. A binding may
// return its own error type implementing it.
type Statuser interface{ StatusOf() Status }

// Classify maps an operation's error to its outcome: nil is OK; an error
// carrying a Status (through any wrapping) gives that; an expired deadline
// is TIMEOUT. When runDone says the run itself had ended (its deadline or
// Ctrl-C), an operation that failed without a definite answer from the
// server (ERROR, TIMEOUT, SERVICE_UNAVAILABLE, a context error) was cut
// short by the end of the run: it is CANCELED, not a server failure.
func Classify(err error, runDone bool) Status {
	if err == nil {
		return OK
	}
	s := Error
	var st Statuser
	switch {
	case errors.As(err, &st):
		s = st.StatusOf()
	case errors.Is(err, context.DeadlineExceeded), isNetTimeout(err):
		s = Timeout
	case errors.Is(err, context.Canceled):
		s = Canceled
	}
	if runDone && (s == Error || s == Timeout || s == ServiceUnavailable) {
		return Canceled
	}
	return s
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// ConnectionLost reports whether err is a connection to the server that
// could not be made or broke: refused, reset, closed in the middle of an
// answer. A binding counts such an operation SERVICE_UNAVAILABLE (the
// server may or may not have applied a write sent before the break).
// Timeouts are not among them.
func ConnectionLost(err error) bool {
	if isNetTimeout(err) {
		return false
	}
	var oe *net.OpError
	return errors.As(err, &oe) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// standIns mark the version strings of servers that speak another
// product's API (the compatible servers the bindings are tested against
// here); Describer implementations name them so.
var standIns = []string{"FerretDB", "PouchDB Server", "CouchbaseMock", "not Amazon DynamoDB"}

// IsStandIn reports whether a server version string (see Describer) names a
// stand-in rather than the product the binding is for.
func IsStandIn(server string) bool {
	for _, s := range standIns {
		if strings.Contains(server, s) {
			return true
		}
	}
	return false
}

// WithoutURL is err without the request URL net/http wraps it in (a
// *url.Error): that text can carry a password or a token in a query,
// and the caller names the server its own way.
func WithoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
