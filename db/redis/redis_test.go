package redis_test

import (
	"context"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	sbredis "github.com/servbench/servbench/db/redis"
)

func flush(t *testing.T, url string, cluster bool) {
	t.Helper()
	ctx := context.Background()
	if cluster {
		c := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: strings.Split(strings.TrimPrefix(url, "redis://"), ",")})
		defer c.Close()
		if err := c.ForEachMaster(ctx, func(ctx context.Context, m *goredis.Client) error { return m.FlushAll(ctx).Err() }); err != nil {
			t.Fatal(err)
		}
		return
	}
	o, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := goredis.NewClient(o)
	defer c.Close()
	if err := c.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}

func TestStandalone(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	flush(t, url, false)
	d := dbtest.Open(t, "redis", "redis.url", url)
	dbtest.Operations(t, d, "usertable", true)
	if v, _ := d.(db.Describer).ServerVersion(context.Background()); !strings.HasPrefix(v, "Redis 7") {
		t.Errorf("server version %q", v)
	}
	flush(t, url, false)
	dbtest.Workloads(t, "redis", 10000, 2000, 2000, "redis.url", url)
}

func TestYCSBScoreScan(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	flush(t, url, false)
	d := dbtest.Open(t, "redis", "redis.url", url, "redis.scanmode", "score")
	dbtest.Operations(t, d, "usertable", false)
}

func TestCluster(t *testing.T) {
	addrs := dbtest.ServerURL(t, "SERVBENCH_REDIS_CLUSTER_URL")
	url := "redis://" + addrs
	flush(t, url, true)
	d := dbtest.Open(t, "redis", "redis.url", url, "redis.cluster", "true")
	dbtest.Operations(t, d, "usertable", true)
	if v, _ := d.(db.Describer).ServerVersion(context.Background()); !strings.HasSuffix(v, "(cluster)") {
		t.Errorf("server version %q does not say cluster", v)
	}
	flush(t, url, true)
	dbtest.Workloads(t, "redis", 10000, 2000, 2000, "redis.url", url, "redis.cluster", "true")
}

func TestConfigErrors(t *testing.T) {
	for _, kv := range [][]string{
		{"redis.url", "http://127.0.0.1"},
		{"redis.url", "redis://127.0.0.1"},
		{"redis.host", "127.0.0.1:1,127.0.0.1:2"},
		{"redis.scanmode", "random"},
		{"redis.timeout", "0"},
	} {
		b, _ := db.Lookup("redis")
		_, err := b.Open(context.Background(), dbtest.Props(kv...))
		if err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%v: err = %v", kv, err)
		}
	}
	// Nothing listens on port 1: the error says where, without a password.
	b, _ := db.Lookup("redis")
	_, err := b.Open(context.Background(), dbtest.Props("redis.url", "redis://u:hunter2@127.0.0.1:1", "redis.timeout", "200"))
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("err = %v", err)
	}
	_ = sbredis.Store{}
}
