package postgres_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workloads"
)

// hugeRows stands in for PostgreSQL on 127.0.0.1, its table empty but for
// its first reads: a row declaring a body of 1,073,741,808 bytes (pgx
// gives memory to what a message declares, up to 1 GB, and waits for it).
func hugeRows(t *testing.T, huge int64) (string, *atomic.Int64) {
	return standIn(t, huge, 0)
}

// standIn serves as hugeRows does, and answers each scan with scanRows
// rows whatever its LIMIT (a server that ignores it; < 0: without end;
// settingsWithoutEnd: ParameterStatus messages, each of a new name, the
// count it returns the bytes so sent). A scan without end stops, as
// PostgreSQL's does, when the client asks another connection to cancel it
// (pgx does, for the connection it cut off): it fails then, and the
// connection ends at the client's Terminate, as the server's does.
func standIn(t *testing.T, huge int64, scanRows int) (string, *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var reads, cancels atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveRows(c, huge, scanRows, &reads, &cancels)
		}
	}()
	return ln.Addr().String(), &reads
}

func serveRows(c net.Conn, huge int64, scanRows int, reads, cancels *atomic.Int64) {
	defer c.Close()
	be := pgproto3.NewBackend(c, c)
	start, err := be.ReceiveStartupMessage()
	if err != nil {
		return
	}
	if _, ok := start.(*pgproto3.CancelRequest); ok { // the server cancels the statement and hangs up
		cancels.Add(1)
		return
	}
	be.Send(&pgproto3.AuthenticationOk{})
	be.Send(&pgproto3.ParameterStatus{Name: "server_version", Value: "16.0"})
	be.Send(&pgproto3.ParameterStatus{Name: "client_encoding", Value: "UTF8"})
	be.Send(&pgproto3.ParameterStatus{Name: "standard_conforming_strings", Value: "on"})
	be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 1}})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if be.Flush() != nil {
		return
	}
	statements := map[string]string{} // name → SQL
	portals := map[string]string{}    // name → SQL
	text := &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("doc"), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1}}}
	keyDoc := &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("ycsb_key"), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1},
		{Name: []byte("doc"), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1}}}
	for {
		msg, err := be.Receive()
		if err != nil {
			return
		}
		switch m := msg.(type) {
		case *pgproto3.Query:
			if strings.Contains(m.String, "server_version") {
				be.Send(text)
				be.Send(&pgproto3.DataRow{Values: [][]byte{[]byte("16.0")}})
			}
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 0")})
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		case *pgproto3.Parse:
			statements[m.Name] = m.Query
			be.Send(&pgproto3.ParseComplete{})
		case *pgproto3.Describe:
			sql := statements[m.Name]
			if m.ObjectType == 'P' {
				sql = portals[m.Name]
			} else {
				params := make([]uint32, strings.Count(sql, "$"))
				for i := range params {
					params[i] = 25
					if strings.Contains(sql, fmt.Sprintf("LIMIT $%d", i+1)) {
						params[i] = 20 // int8
					}
				}
				be.Send(&pgproto3.ParameterDescription{ParameterOIDs: params})
			}
			if strings.HasPrefix(sql, "SELECT ycsb_key, doc FROM") {
				be.Send(keyDoc)
			} else if strings.HasPrefix(strings.TrimSpace(sql), "SELECT") || strings.HasPrefix(strings.TrimSpace(sql), "SHOW") {
				be.Send(text)
			} else {
				be.Send(&pgproto3.NoData{})
			}
		case *pgproto3.Bind:
			portals[m.DestinationPortal] = statements[m.PreparedStatement]
			be.Send(&pgproto3.BindComplete{})
		case *pgproto3.Execute:
			sql := portals[m.Portal]
			switch {
			case strings.HasPrefix(sql, "SELECT doc FROM") && reads.Add(1) <= huge:
				be.Flush()
				var header [5]byte
				header[0] = 'D'
				binary.BigEndian.PutUint32(header[1:], 0x3ffffff0)
				c.Write(header[:])
				continue // and nothing more: pgx waited for its gigabyte
			case strings.HasPrefix(sql, "SELECT ycsb_key, doc FROM") && scanRows == settingsWithoutEnd:
				be.Flush()
				c.(*net.TCPConn).SetWriteBuffer(64 << 10)
				for i := 0; reads.Load() < 64<<20; { // reads: the bytes sent, here; the test fails past its bound
					var buf []byte
					for len(buf) < 64<<10 {
						buf, _ = (&pgproto3.ParameterStatus{Name: fmt.Sprintf("setting%d", i), Value: strings.Repeat("v", 100)}).Encode(buf)
						i++
					}
					n, err := c.Write(buf)
					if reads.Add(int64(n)); err != nil {
						return
					}
				}
				return // hung up: the client without a bound fails the test by the bytes it took
			case strings.HasPrefix(sql, "SELECT ycsb_key, doc FROM") && scanRows != 0:
				cancelled := cancels.Load()
				i := 0
				for ; i < scanRows || scanRows < 0 && cancels.Load() == cancelled; i++ { // < 0: without end, until cancelled
					be.Send(&pgproto3.DataRow{Values: [][]byte{fmt.Appendf(nil, "user%09d", i), []byte(`{"field0":"x"}`)}})
					if i%1000 == 999 && be.Flush() != nil {
						return
					}
				}
				if i < scanRows || scanRows < 0 {
					be.Send(&pgproto3.ErrorResponse{Severity: "ERROR", Code: "57014", Message: "canceling statement due to user request"})
				} else {
					be.Send(&pgproto3.CommandComplete{CommandTag: fmt.Appendf(nil, "SELECT %d", scanRows)})
				}
			case scanRows == notificationsWithoutEnd && strings.HasPrefix(sql, "SELECT") && strings.Contains(sql, "WHERE ycsb_key = $1"):
				be.Flush()
				for reads.Load() < 64<<20 { // reads: the bytes sent, here; the test fails past its bound
					var buf []byte
					for len(buf) < 64<<10 {
						buf, _ = (&pgproto3.NotificationResponse{PID: 1, Channel: "c", Payload: strings.Repeat("p", 1000)}).Encode(buf)
					}
					n, err := c.Write(buf)
					if reads.Add(int64(n)); err != nil {
						return
					}
				}
				return // hung up: the client without a bound fails the test by the bytes it took
			case scanRows == shortRows && strings.HasPrefix(sql, "SELECT") && strings.Contains(sql, "WHERE ycsb_key = $1"):
				be.Send(&pgproto3.DataRow{}) // no value for the column described
				be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
			case strings.HasPrefix(sql, "SHOW"):
				be.Send(&pgproto3.DataRow{Values: [][]byte{[]byte("16.0")}})
				be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SHOW")})
			case strings.HasPrefix(sql, "SELECT"):
				be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 0")})
			default:
				be.Send(&pgproto3.CommandComplete{CommandTag: []byte("UPDATE 1")})
			}
		case *pgproto3.Close:
			be.Send(&pgproto3.CloseComplete{})
		case *pgproto3.Sync:
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		case *pgproto3.Terminate:
			return
		}
		if be.Flush() != nil {
			return
		}
	}
}

// A row declaring more than any record's (pgx gave memory to its
// declared length, up to 1 GB, and waited for it without end) fails its
// read as a server error; the run goes on and writes its results.
func TestHugeRowFailsItsOperation(t *testing.T) {
	addr, reads := hugeRows(t, 2)
	p := props.New()
	workloads.Load(p, "c")
	for k, v := range map[string]string{"postgres.url": "postgres://u@" + addr + "/db?sslmode=disable", "recordcount": "10",
		"operationcount": "20", "postgres.createtable": "false"} {
		p.Set(k, v, "test")
	}
	t.Setenv("HOME", t.TempDir()) // no ~/.pgpass of the machine's
	res, err := engine.Run(context.Background(), engine.Spec{Binding: "postgres", Properties: p, Phase: engine.RunPhase, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if reads.Load() < 3 {
		t.Fatalf("the server answered %d reads", reads.Load())
	}
	var read bool
	for _, op := range res.Doc().Ops {
		if op.Name == "READ" {
			read = true
			if op.Count != 20 || op.Outcomes["ERROR"] != 2 || op.Outcomes["NOT_FOUND"] != 18 {
				t.Errorf("READ: %d operations, outcomes %v: want 2 ERROR (the huge rows) and 18 NOT_FOUND", op.Count, op.Outcomes)
			}
		}
	}
	if !read {
		t.Errorf("no READ in the result")
	}
}

// A server that answers the startup with ParameterStatus messages without
// end (pgx kept each, every one within the message bound: gigabytes)
// fails the connect at wire.MaxStartup, naming postgres.url and the bound.
func TestEndlessStartupFailsTheConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const most = 64 << 20 // the stand-in stops there, the test failing without the bound
	var sent atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.(*net.TCPConn).SetWriteBuffer(64 << 10)
		be := pgproto3.NewBackend(c, c)
		if _, err := be.ReceiveStartupMessage(); err != nil {
			return
		}
		be.Send(&pgproto3.AuthenticationOk{})
		for i := 0; sent.Load() < most; {
			var buf []byte
			for len(buf) < 64<<10 {
				buf, _ = (&pgproto3.ParameterStatus{Name: fmt.Sprintf("p%d", i%100), Value: "v"}).Encode(buf) // names repeated: the bytes are what is bounded
				i++
			}
			n, err := c.Write(buf)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
		io.Copy(io.Discard, c) // until the client hangs up
	}()
	err = openErr("postgres.url", "postgres://u@"+ln.Addr().String()+"/db?sslmode=disable", "postgres.connecttimeout", "3000")
	if err == nil {
		t.Fatal("connected")
	}
	if !strings.Contains(err.Error(), "postgres.url") || !strings.Contains(err.Error(), "more than 1 MiB before its connection was ready") ||
		strings.Contains(err.Error(), "\n") {
		t.Errorf("error: %v", err)
	}
	ln.Close()
	<-done
	t.Logf("%v; the stand-in sent %d bytes", err, sent.Load())
	// What the stand-in sent past the bound is what the sockets' buffers held.
	if n := sent.Load(); n > wire.MaxStartup+8<<20 {
		t.Errorf("the stand-in sent %d bytes before the client hung up: more than the bound (%d) and 8 MiB", n, wire.MaxStartup)
	}
}

// A scan answered with more rows than its LIMIT (a server that ignores it:
// 200,000 here, without end in an attack, kept row by row until the
// process ran out of memory) fails as the binding reads the row past the
// count; the run goes on and writes its results.
func TestScanPastItsLimitFails(t *testing.T) {
	for _, rows := range []int{20000, -1} { // 20,000: past the sockets' buffers; -1: without end, the connection cut, not read to its end
		addr, _ := standIn(t, 0, rows)
		scans(t, addr, 20, fmt.Sprintf("%d rows a scan", rows))
	}
}

// scans runs ops scans against the stand-in at addr, each of which must
// fail (ERROR), and returns the first one's error.
func scans(t *testing.T, addr string, ops int, what string) string {
	res := runOn(t, addr, "e", map[string]string{"operationcount": strconv.Itoa(ops), "scanproportion": "1", "insertproportion": "0"})
	for _, op := range res.Doc().Ops {
		if op.Name == "SCAN" {
			if op.Count != int64(ops) || op.Outcomes["ERROR"] != int64(ops) {
				t.Errorf("%s: SCAN: %d operations, outcomes %v: want %d, each an ERROR", what, op.Count, op.Outcomes, ops)
			}
			return op.Errors["ERROR"]
		}
	}
	t.Errorf("%s: no SCAN in the result", what)
	return ""
}

// runOn runs workload wl with one thread against the stand-in at addr, its
// 10 records' table there, with the properties kv.
func runOn(t *testing.T, addr, wl string, kv map[string]string) *engine.Result {
	t.Helper()
	p := props.New()
	workloads.Load(p, wl)
	p.Set("postgres.url", "postgres://u@"+addr+"/db?sslmode=disable", "test")
	p.Set("recordcount", "10", "test")
	p.Set("postgres.createtable", "false", "test")
	for k, v := range kv {
		p.Set(k, v, "test")
	}
	t.Setenv("HOME", t.TempDir()) // no ~/.pgpass of the machine's
	res, err := engine.Run(context.Background(), engine.Spec{Binding: "postgres", Properties: p, Phase: engine.RunPhase, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const (
	settingsWithoutEnd = -2
	shortRows          = -3 // each read answered by a row of fewer values than its columns
	// each read answered by notifications (LISTEN/NOTIFY) without end
	notificationsWithoutEnd = -4
)

// A read answered by notifications without end (pgx kept each one, and
// the read went on as long as they came) fails at wire.MaxNotifications;
// the run goes on and writes its results.
func TestEndlessNotificationsFailTheOperation(t *testing.T) {
	addr, sent := standIn(t, 0, notificationsWithoutEnd)
	res := runOn(t, addr, "c", map[string]string{"operationcount": "2", "postgres.layout": "columns", "fieldcount": "1"})
	if n := sent.Load(); n > 16<<20 {
		t.Errorf("the stand-in sent %d bytes before the client hung up", n)
	}
	readsFailed(t, res, 2, "more than 1024 notifications (LISTEN/NOTIFY)")
}

// A row of fewer values than the columns its description lists (pgx's
// RawValues and Values do not check; the binding indexed one by the other
// and the process panicked) fails its read; the run goes on and writes
// its results.
func TestShortRowFailsItsOperation(t *testing.T) {
	addr, _ := standIn(t, 0, shortRows)
	res := runOn(t, addr, "c", map[string]string{"operationcount": "5", "postgres.layout": "columns", "fieldcount": "1"})
	readsFailed(t, res, 5, "a row of 0 values for 1 columns")
}

// readsFailed checks that res has n reads, each an ERROR saying why.
func readsFailed(t *testing.T, res *engine.Result, n int64, why string) {
	t.Helper()
	for _, op := range res.Doc().Ops {
		if op.Name == "READ" {
			if op.Count != n || op.Outcomes["ERROR"] != n || !strings.Contains(op.Errors["ERROR"], why) {
				t.Errorf("READ: %d operations, outcomes %v, %q: want %d, each an ERROR saying %q", op.Count, op.Outcomes, op.Errors["ERROR"], n, why)
			}
			return
		}
	}
	t.Error("no READ in the result")
}

// A server that reports settings (ParameterStatus) without end once its
// connection is ready, each of a new name (pgx keeps every one by its
// name, each within the message bound: gigabytes), fails the operation at
// wire.MaxParameters names; the run goes on and writes its results.
func TestEndlessSettingsFailTheOperation(t *testing.T) {
	addr, sent := standIn(t, 0, settingsWithoutEnd)
	msg := scans(t, addr, 2, "settings without end")
	// What the stand-in sent past the bound is what the sockets' buffers held.
	if n := sent.Load(); n > 2*(wire.MaxParameters*wire.MaxParameterStatus+8<<20) {
		t.Errorf("the stand-in sent %d bytes before the client hung up", n)
	}
	if !strings.Contains(msg, "more than 128 settings (ParameterStatus)") {
		t.Errorf("the SCAN's error: %q", msg)
	}
}

// A password pgx reads from ~/.pgpass (no property names it) is hidden by
// every writer of the process, as a property's is: a server's error or a
// setup step's output that quotes it shows it hidden.
func TestPassfilePasswordIsASecret(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".pgpass"), []byte("127.0.0.1:1:*:*:Pg7fromPassfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("PGPASSFILE", "")
	p := props.New()
	workloads.Load(p, "c")
	p.Set("postgres.url", "postgres://u@127.0.0.1:1/db?sslmode=disable", "test")
	engine.Run(context.Background(), engine.Spec{Binding: "postgres", Properties: p, Phase: engine.RunPhase, Threads: 1}) // no server: its connect fails
	if got := (*props.Redactor)(nil).Redact("the server said Pg7fromPassfile"); strings.Contains(got, "Pg7fromPassfile") {
		t.Errorf("shown: %s", got)
	}
}
