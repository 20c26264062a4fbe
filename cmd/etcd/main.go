// Command etcd is etcd 3.6, built from the Go module proxy for docs/CLUSTER.md's local cluster.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
