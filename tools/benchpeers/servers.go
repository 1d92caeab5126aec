package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/servbench/servbench/tools/internal/peers"
)

// servers are the servers' addresses (flags), clientCPUs the CPUs every
// client is pinned to (-client-cpus; "" unpinned).
var (
	servers struct {
		postgres, mongodb, cassandra, dynamodb, couchbase string
	}
	clientCPUs string
)

// serverDB is a database servbench's binding is compared on with YCSB's
// own binding for it, each configured to do the same work.
type serverDB struct {
	sb   []string // servbench's binding and its properties
	ycsb []string // YCSB's -db class and its properties
	cp   string   // YCSB's binding folder under bindings/
	// ycsbLoad are YCSB's properties for a load: its binding's batching.
	ycsbLoad []string
	// jvm are YCSB's Java system properties (before -cp).
	jvm []string
	// ownData: YCSB's binding names its records differently (Couchbase's
	// "table:key"): YCSB loads a copy of its own.
	ownData bool
	// What each does, side by side: driver, connections, consistency or
	// write concern, statements.
	sbConfig, ycsbConfig string
}

var serverDBNames = []string{"postgres", "mongodb", "cassandra", "dynamodb", "couchbase"}

// serverDBs describes the databases, with YCSB's DynamoDB credentials in
// credFile.
func serverDBs(credFile string) (map[string]serverDB, error) {
	pg, err := url.Parse(servers.postgres)
	if err != nil || pg.Host == "" {
		return nil, fmt.Errorf("-postgres %q: want postgres://USER@HOST:PORT/DB", servers.postgres)
	}
	user := "postgres"
	if pg.User != nil && pg.User.Username() != "" {
		user = pg.User.Username()
	}
	host, port, ok := strings.Cut(servers.cassandra, ":")
	if !ok {
		return nil, fmt.Errorf("-cassandra %q: want host:port", servers.cassandra)
	}
	mongo := strings.TrimSuffix(servers.mongodb, "/") + "/ycsb"
	cb, err := url.Parse(servers.couchbase)
	if err != nil || cb.Hostname() == "" {
		return nil, fmt.Errorf("-couchbase %q: want couchbase://HOST[?options]", servers.couchbase)
	}
	cbHost := cb.Hostname()
	return map[string]serverDB{
		"postgres": {
			sb:   []string{"postgres", "-p", "postgres.url=" + servers.postgres, "-p", "postgres.layout=columns"},
			ycsb: []string{"-db", "site.ycsb.db.JdbcDBClient", "-p", "db.driver=org.postgresql.Driver", "-p", "db.url=jdbc:postgresql://" + pg.Host + pg.Path, "-p", "db.user=" + user},
			cp:   "jdbc",
			ycsbLoad: []string{"-p", "db.batchsize=100", "-p", "jdbc.batchupdateapi=true",
				"-p", "db.url=jdbc:postgresql://" + pg.Host + pg.Path + "?reWriteBatchedInserts=true"},
			sbConfig: "pgx v5 pool of threads + 2 connections, statements prepared and cached per connection, " +
				"a column per field (postgres.layout=columns), autocommit",
			ycsbConfig: "PostgreSQL JDBC 42.7.4, a connection per thread, a PreparedStatement per statement shape, a column per field, autocommit",
		},
		"mongodb": {
			sb:         []string{"mongodb", "-p", "mongodb.url=" + mongo},
			ycsb:       []string{"-db", "site.ycsb.db.MongoDbClient", "-p", "mongodb.url=" + mongo},
			cp:         "mongodb",
			ycsbLoad:   []string{"-p", "batchsize=100"},
			sbConfig:   "mongo-driver v2, one client, a pool of threads + 2, write concern acknowledged (w: 1), primary reads",
			ycsbConfig: "MongoDB Java driver (sync), one client shared by the threads, write concern acknowledged, primary reads",
		},
		"cassandra": {
			sb:         []string{"cassandra", "-p", "hosts=" + host, "-p", "port=" + port, "-p", "cassandra.keyspace=ycsb"},
			ycsb:       []string{"-db", "site.ycsb.db.CassandraCQLClient", "-p", "hosts=" + host, "-p", "port=" + port, "-p", "cassandra.keyspace=ycsb"},
			cp:         "cassandra",
			sbConfig:   "gocql v2, 2 connections, prepared statements, consistency ONE for reads and writes, each request written at once",
			ycsbConfig: "DataStax Java driver 3.0.0, its default pool (one connection per host with protocol v3 and later), prepared statements, consistency ONE for reads and writes",
		},
		"couchbase": {
			sb: []string{"couchbase", "-p", "couchbase.url=" + servers.couchbase, "-p", "couchbase.update=replace"},
			ycsb: []string{"-db", "site.ycsb.db.couchbase2.Couchbase2Client", "-p", "couchbase.host=" + cbHost,
				"-p", "couchbase.bucket=default", "-p", "couchbase.boost=0"},
			cp:      "couchbase2",
			ownData: true,
			sbConfig: "gocb v2.11, one key-value connection, get of the whole document, an update replaces the document " +
				"with the updated fields (couchbase.update=replace, as YCSB's binding does), no durability, keys as they are",
			ycsbConfig: "Couchbase Java SDK 2.3.1, one key-value endpoint, Netty's plain event loop (couchbase.boost=0: the default, " +
				"3 busy-polling loops, starves the binding's own threads on a client of one core), get of the whole document, an update replaces the document " +
				"with the updated fields (its other fields are lost), no persistTo/replicateTo, keys \"table:key\" (its own copy of the records)",
		},
		"dynamodb": {
			sb: []string{"dynamodb", "-p", "dynamodb.endpoint=" + servers.dynamodb, "-p", "dynamodb.accesskey=local", "-p", "dynamodb.secretkey=local"},
			ycsb: []string{"-db", "site.ycsb.db.DynamoDBClient", "-p", "dynamodb.endpoint=" + servers.dynamodb, "-p", "dynamodb.primaryKey=y_id",
				"-p", "dynamodb.awsCredentialsFile=" + credFile},
			cp:         "dynamodb",
			sbConfig:   "aws-sdk-go-v2, kept-alive connections (threads + 2), eventually consistent reads, GetItem/PutItem/UpdateItem",
			ycsbConfig: "AWS SDK for Java 1.11.812, eventually consistent reads, GetItem/PutItem/UpdateItem",
		},
	}, nil
}

// credentials writes YCSB's DynamoDB credentials file for DynamoDB Local.
func credentials(dir string) (string, error) {
	f := filepath.Join(dir, "dynamodb-credentials.properties")
	return f, os.WriteFile(f, []byte("accessKey=local\nsecretKey=local\n"), 0o600)
}

// pinned prefixes a command with taskset when the clients are pinned.
func pinned(args []string) []string {
	if clientCPUs == "" {
		return args
	}
	return append([]string{"taskset", "-c", clientCPUs}, args...)
}

// pin pins every tool's commands (-client-cpus).
func pin(tools []peers.Tool) {
	for i := range tools {
		cmd := tools[i].Command
		tools[i].Command = func(c peers.Case) []string { return pinned(cmd(c)) }
	}
}

// configTable says what each client does, side by side, for the
// databases compared.
func configTable(dbs map[string]serverDB, names []string) string {
	var b strings.Builder
	b.WriteString("| database | servbench | YCSB |\n|---|---|---|\n")
	for _, n := range names {
		d := dbs[n]
		fmt.Fprintf(&b, "| %s | %s | %s |\n", n, d.sbConfig, d.ycsbConfig)
	}
	return b.String()
}

const pgbenchName = "pgbench"

// pgbenchTool is pgbench (PostgreSQL's own client, in C) doing the point
// reads servbench's postgres binding does on workload C with a uniform
// request distribution: YCSB's keys ("user" and the FNV-1a hash of a record
// number, which pgbench's hash_fnv1a computes the same way), SELECT * by
// primary key, prepared, one connection per thread, as many worker threads
// as the clients have CPUs. Its per-transaction log (a tenth, sampled)
// gives its p99. check, run once before the runs, fails when a key the
// script reads is not in the table.
func pgbenchTool(dir, table string, records, duration int) (tool peers.Tool, check []string, err error) {
	pg, err := url.Parse(servers.postgres)
	if err != nil {
		return tool, nil, err
	}
	host, port := pg.Hostname(), pg.Port()
	if port == "" {
		port = "5432"
	}
	user := "postgres"
	var env []string
	if pg.User != nil {
		if pg.User.Username() != "" {
			user = pg.User.Username()
		}
		if pw, ok := pg.User.Password(); ok {
			env = append(env, "PGPASSWORD="+pw)
		}
	}
	key := "\\set n random(0, :records - 1)\n\\set h abs(hash_fnv1a(:n, 0))\n"
	from := " FROM " + ident(table) + " WHERE ycsb_key = 'user' || :h"
	script, checkScript := filepath.Join(dir, "read.sql"), filepath.Join(dir, "check.sql")
	if err := os.WriteFile(script, []byte(key+"SELECT *"+from+";\n"), 0o644); err != nil {
		return tool, nil, err
	}
	if err := os.WriteFile(checkScript, []byte(key+"SELECT ycsb_key"+from+" \\gset\n"), 0o644); err != nil {
		return tool, nil, err
	}
	jobs := cpuCount(clientCPUs)
	base := func(threads int) []string {
		return []string{"pgbench", "-n", "-M", "prepared", "-h", host, "-p", port, "-U", user,
			"-c", strconv.Itoa(threads), "-j", strconv.Itoa(min(threads, jobs)), "-D", "records=" + strconv.Itoa(records)}
	}
	logs := filepath.Join(dir, "logs")
	db := strings.TrimPrefix(pg.Path, "/")
	tool = peers.Tool{Name: pgbenchName, Native: true, Env: env,
		For: func(c peers.Case) bool { return c.Ref == pgbenchName },
		Command: func(c peers.Case) []string {
			os.RemoveAll(logs)
			os.MkdirAll(logs, 0o755)
			return append(base(c.Threads), "-T", strconv.Itoa(duration), "-f", script,
				"-l", "--sampling-rate=0.1", "--log-prefix="+filepath.Join(logs, "log"), db)
		},
		Parse: func(_ peers.Case, r io.Reader) (peers.Report, error) {
			files, _ := filepath.Glob(filepath.Join(logs, "log.*"))
			var readers []io.Reader
			for _, f := range files {
				fh, err := os.Open(f)
				if err != nil {
					return peers.Report{}, err
				}
				defer fh.Close()
				readers = append(readers, fh)
			}
			return peers.ParsePgbench(r, readers...)
		}}
	check = append(base(1), "-t", "1000", "-f", checkScript, db)
	return tool, check, nil
}

// cpuCount is the number of CPUs in a taskset list ("0", "0-2,5"); the
// machine's when the list is empty.
func cpuCount(list string) int {
	if list == "" {
		return runtime.NumCPU()
	}
	n := 0
	for _, r := range strings.Split(list, ",") {
		a, b, ok := strings.Cut(r, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := lo, error(nil)
		if ok {
			hi, err2 = strconv.Atoi(b)
		}
		if err1 != nil || err2 != nil || hi < lo {
			return 1
		}
		n += hi - lo + 1
	}
	return max(n, 1)
}

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// couchbaseCarrierPort asks a Couchbase server's REST API (port 8091 of
// the -couchbase host) for its first node's key-value port. YCSB's
// couchbase2 binding (Java SDK 2.3) first asks the key-value port for the
// cluster's configuration, at 11210 unless told: CouchbaseMock's is
// another, and without it the binding's bootstrap times out (its HTTP
// fallback does too, against the mock).
func couchbaseCarrierPort(ctx context.Context) (int, error) {
	return carrierPort(ctx, couchbaseREST)
}

// couchbaseREST is the port of Couchbase's REST API.
const couchbaseREST = "8091"

func carrierPort(ctx context.Context, port string) (int, error) {
	u, err := url.Parse(servers.couchbase)
	if err != nil {
		return 0, err
	}
	rest := "http://" + net.JoinHostPort(u.Hostname(), port) + "/pools/default/buckets/default"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rest, nil)
	if err != nil {
		return 0, err
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, fmt.Errorf("couchbase: %v", err)
	}
	defer resp.Body.Close()
	var bucket struct {
		Nodes []struct {
			Ports struct {
				Direct int `json:"direct"`
			} `json:"ports"`
		} `json:"nodes"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&bucket); err != nil || resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("couchbase: %s: %s, %v", rest, resp.Status, err)
	}
	if len(bucket.Nodes) == 0 || bucket.Nodes[0].Ports.Direct == 0 {
		return 0, fmt.Errorf("couchbase: %s names no node's key-value port", rest)
	}
	return bucket.Nodes[0].Ports.Direct, nil
}

// latteName names latte, the Rust benchmark for Cassandra (the scylla
// driver), as a tool and a case.
const latteName = "latte"

// latteTool is latte reading the comparison's table in keyspace ycsb by
// its keys "user" + n, n drawn uniformly below records (the keys of a
// load with insertorder=ordered), a prepared SELECT * at consistency ONE,
// as many requests in flight as the case's threads, on as many threads of
// its own as the client has CPUs.
func latteTool(dir, table string, records, duration int) (peers.Tool, error) {
	script := filepath.Join(dir, "read.rn")
	text := `const READ = "read";

pub async fn prepare(ctx) {
    ctx.prepare(READ, "SELECT * FROM ycsb.` + table + ` WHERE y_id = ?").await?;
}

pub async fn run(ctx, i) {
    let n = latte::hash(i) % ` + strconv.Itoa(records) + `;
    ctx.execute_prepared(READ, [` + "`user${n}`" + `]).await?
}
`
	if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
		return peers.Tool{}, err
	}
	report := filepath.Join(dir, "latte.json")
	jobs := cpuCount(clientCPUs)
	return peers.Tool{Name: latteName, Native: true, Env: []string{"LATTE_LOG_DIR=" + dir}, // its log, not in the working directory
		For: func(c peers.Case) bool { return c.Ref == latteName },
		Command: func(c peers.Case) []string {
			os.Remove(report)
			return []string{latteName, "run", script, "-q", "-d", strconv.Itoa(duration) + "s", "-w", "1s",
				"-t", strconv.Itoa(min(c.Threads, jobs)), "-p", strconv.Itoa(c.Threads), "--consistency", "ONE", "-o", report, servers.cassandra}
		},
		Parse: func(peers.Case, io.Reader) (peers.Report, error) {
			f, err := os.Open(report)
			if err != nil {
				return peers.Report{}, fmt.Errorf("latte: %w", err)
			}
			defer f.Close()
			return peers.ParseLatte(f)
		}}, nil
}
