package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/servbench/servbench/internal/peers"
)

// servers are the servers' addresses (flags), clientCPUs the CPUs every
// client is pinned to (-client-cpus; "" unpinned).
var (
	servers struct {
		postgres, mongodb, cassandra, dynamodb string
	}
	clientCPUs string
)

// serverDB is a database servbench's binding is compared on with YCSB's
// own binding for it, each configured to do the same work.
type serverDB struct {
	sb   []string // servbench's binding and its properties
	ycsb []string // YCSB's -db class and its properties
	cp   string   // YCSB's binding folder under bindings/
	// What each does, side by side: driver, connections, consistency or
	// write concern, statements.
	sbConfig, ycsbConfig string
}

var serverDBNames = []string{"postgres", "mongodb", "cassandra", "dynamodb"}

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
	return map[string]serverDB{
		"postgres": {
			sb:   []string{"postgres", "-p", "postgres.url=" + servers.postgres, "-p", "postgres.layout=columns"},
			ycsb: []string{"-db", "site.ycsb.db.JdbcDBClient", "-p", "db.driver=org.postgresql.Driver", "-p", "db.url=jdbc:postgresql://" + pg.Host + pg.Path, "-p", "db.user=" + user},
			cp:   "jdbc",
			sbConfig: "pgx v5 pool of threads + 2 connections, statements prepared and cached per connection, " +
				"a column per field (postgres.layout=columns), autocommit",
			ycsbConfig: "PostgreSQL JDBC 42.7.4, a connection per thread, a PreparedStatement per statement shape, a column per field, autocommit",
		},
		"mongodb": {
			sb:         []string{"mongodb", "-p", "mongodb.url=" + mongo},
			ycsb:       []string{"-db", "site.ycsb.db.MongoDbClient", "-p", "mongodb.url=" + mongo},
			cp:         "mongodb",
			sbConfig:   "mongo-driver v2, one client, a pool of threads + 2, write concern acknowledged (w: 1), primary reads",
			ycsbConfig: "MongoDB Java driver (sync), one client shared by the threads, write concern acknowledged, primary reads",
		},
		"cassandra": {
			sb:         []string{"cassandra", "-p", "hosts=" + host, "-p", "port=" + port, "-p", "cassandra.keyspace=ycsb"},
			ycsb:       []string{"-db", "site.ycsb.db.CassandraCQLClient", "-p", "hosts=" + host, "-p", "port=" + port, "-p", "cassandra.keyspace=ycsb"},
			cp:         "cassandra",
			sbConfig:   "gocql v2, prepared statements, consistency ONE for reads and writes",
			ycsbConfig: "DataStax Java driver 3.0.0, prepared statements, consistency ONE for reads and writes",
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
