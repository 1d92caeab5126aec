// Command servbench benchmarks databases with YCSB's workloads.
package main

import (
	"os"

	"github.com/servbench/servbench/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
