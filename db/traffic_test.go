package db

import "testing"

type counter struct{ sent, recv int64 }

func (c *counter) Traffic() (int64, int64) { return c.sent, c.recv }

// A binding's count of bytes is a sample of two counters, per client.
func TestTrafficSample(t *testing.T) {
	s := TrafficSample(&counter{4000, 2000})
	if !s.PerClient || len(s.Stats) != 2 || s.Stats[0].Value != 4000 || s.Stats[1].Value != 2000 || !s.Stats[1].Counter || s.Stats[0].Name != "sent_bytes" {
		t.Errorf("sample %+v", s)
	}
}
