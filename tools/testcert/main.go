// Command testcert writes the certificates of the TLS tests (see
// internal/testcert) into a directory, for scripts/servers to start the
// local servers with TLS: testcert DIR CLIENT-NAME. It writes nothing
// when DIR already holds them.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/servbench/servbench/internal/testcert"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: testcert DIR CLIENT-NAME")
		os.Exit(2)
	}
	dir := os.Args[1]
	if _, err := os.Stat(filepath.Join(dir, "wrong-name.key")); err == nil {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "testcert:", err)
		os.Exit(1)
	}
	if _, err := testcert.Make(dir, os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "testcert:", err)
		os.Exit(1)
	}
}
