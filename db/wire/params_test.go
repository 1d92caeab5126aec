package wire

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// The messages are followed whatever the reads' sizes: a ParameterStatus
// name split over reads counts once, names sent again count once, and the
// name past MaxParameters or a message past MaxParameterStatus fails the
// read, and every read after it.
func TestParameterStatusBounds(t *testing.T) { // and notifications
	msgs := func(names, repeat, size int) []byte {
		var b []byte
		for r := 0; r < repeat; r++ {
			for i := 0; i < names; i++ {
				b, _ = (&pgproto3.DataRow{Values: [][]byte{[]byte("row")}}).Encode(b)
				b, _ = (&pgproto3.ParameterStatus{Name: fmt.Sprintf("setting%d", i), Value: strings.Repeat("v", size)}).Encode(b)
			}
		}
		return b
	}
	for _, c := range []struct {
		name   string
		stream []byte
		fail   bool
	}{
		{"as many names as the bound, each three times", msgs(MaxParameters, 3, 10), false},
		{"one name more", msgs(MaxParameters+1, 1, 10), true},
		{"a value at the bound", msgs(1, 1, MaxParameterStatus-len("setting0")-2), false},
		{"a value past it", msgs(1, 1, MaxParameterStatus-len("setting0")-1), true},
		{"notifications at the bound", notifications(MaxNotifications), false},
		{"one more", notifications(MaxNotifications + 1), true},
	} {
		for _, chunk := range []int{1, 7, 4096} {
			err := readThrough(BoundParameterStatus, c.stream, chunk)
			var pe *ParameterError
			if got := errors.As(err, &pe); got != c.fail {
				t.Errorf("%s, reads of %d bytes: error %v", c.name, chunk, err)
			}
		}
	}
}

// notifications are n NotificationResponse messages, each after a row.
func notifications(n int) []byte {
	var b []byte
	for i := range n {
		b, _ = (&pgproto3.DataRow{Values: [][]byte{[]byte("row")}}).Encode(b)
		b, _ = (&pgproto3.NotificationResponse{PID: 1, Channel: "c", Payload: fmt.Sprint(i)}).Encode(b)
	}
	return b
}

// readThrough reads stream, written chunk bytes at a time, through the
// connection wrap makes, and returns the error its reading ended with.
func readThrough(wrap func(net.Conn) net.Conn, stream []byte, chunk int) error {
	client, server := net.Pipe()
	defer client.Close()
	go func() {
		defer server.Close()
		for b := stream; len(b) > 0; b = b[min(chunk, len(b)):] {
			if _, err := server.Write(b[:min(chunk, len(b))]); err != nil {
				return
			}
		}
	}()
	_, err := io.Copy(io.Discard, wrap(client))
	return err
}
