package basic

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

func TestVerboseFormat(t *testing.T) {
	var out bytes.Buffer
	Output = &out
	p := props.New()
	p.Set("basicdb.verbose", "true", "-p")
	d, err := binding{}.Open(context.Background(), p, db.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := &db.Record{}
	r.Add("field0", []byte("x"))
	d.Read(ctx, "usertable", "user1", nil, &db.Record{})
	d.Read(ctx, "usertable", "user1", []string{"field3"}, &db.Record{})
	d.Update(ctx, "usertable", "user2", r)
	d.Insert(ctx, "usertable", "user3", r)
	d.Scan(ctx, "usertable", "user4", 7, nil, &db.RecordSet{})
	d.Delete(ctx, "usertable", "user5")
	d.Close()
	want := "READ usertable user1 [ <all fields>]\n" +
		"READ usertable user1 [ field3 ]\n" +
		"UPDATE usertable user2 [ field0=x ]\n" +
		"INSERT usertable user3 [ field0=x ]\n" +
		"SCAN usertable user4 7 [ <all fields>]\n" +
		"DELETE usertable user5\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestSimulatedDelay(t *testing.T) {
	p := props.New()
	p.Set("basicdb.simulatedelay", "30", "-p")
	p.Set("basicdb.randomizedelay", "false", "-p")
	d, _ := binding{}.Open(context.Background(), p, db.Options{Threads: 1})
	start := time.Now()
	d.Read(context.Background(), "t", "k", nil, &db.Record{})
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Errorf("read returned after %v, want at least the 30 ms simulated delay", el)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Read(ctx, "t", "k", nil, &db.Record{}); db.Classify(err, true) != db.Canceled {
		t.Errorf("a cancelled delay returned %v", err)
	}
}
