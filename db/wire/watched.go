package wire

import "net"

// watched is a connection whose reads a protocol's scanner follows as
// they pass (BoundRESP, BoundMongo): the read whose bytes the scanner
// refuses fails, and every read after it, before the driver sees them.
type watched struct {
	net.Conn
	failed error
}

// read reads into p and gives what came to scan.
func (w *watched) read(p []byte, scan func([]byte) error) (int, error) {
	if w.failed != nil {
		return 0, w.failed
	}
	n, err := w.Conn.Read(p)
	if n > 0 {
		if w.failed = scan(p[:n]); w.failed != nil {
			return 0, w.failed
		}
	}
	return n, err
}
