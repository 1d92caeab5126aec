package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// oracleStyle is a binding registered as a new one would be, whose
// connection string is Oracle's user/password@host:port/service: a form
// no general rule of redaction knows, whose password only the binding can
// find. It runs on the basic binding; test-oracle.fail makes its connect
// fail with an error that quotes the connection string, as drivers do.
type oracleStyle struct{}

func init() { db.Register("test-oracle", oracleStyle{}) }

func (oracleStyle) Summary() string { return "a test binding with Oracle's connection strings" }

func (oracleStyle) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	url := p.String("test-oracle.url", "")
	fail, err := p.Bool("test-oracle.fail", false)
	if err != nil {
		return nil, err
	}
	if fail && !o.CheckOnly {
		return nil, errors.New("ORA-12541: cannot connect to " + url)
	}
	basic, err := db.Lookup("basic")
	if err != nil {
		return nil, err
	}
	return basic.Open(ctx, p, o)
}

// Secrets finds the password of user/password@host.
func (oracleStyle) Secrets(key, value string) []string {
	if key != "test-oracle.url" {
		return nil
	}
	cred, _, ok := strings.Cut(value, "@")
	if _, pw, ok2 := strings.Cut(cred, "/"); ok && ok2 && pw != "" {
		return []string{pw}
	}
	return nil
}

const oraclePassword = "tiger99x"

// A binding declares its own secrets (db.SecretDeclarer) and its password
// is found nowhere: not in the result, the time series, the text report,
// a plan's copy, results and report, the Kubernetes manifests but their
// Secret, nor any message, also where the password is repeated in a
// property no rule knows (a label) or quoted by the driver's error.
func TestDeclaredSecretsHiddenEverywhere(t *testing.T) {
	dir := t.TempDir()
	url := "test-oracle.url=scott/" + oraclePassword + "@127.0.0.1:1521/ORCL"
	check := func(what, text string) {
		t.Helper()
		if strings.Contains(text, oraclePassword) {
			t.Errorf("%s holds the password:\n%s", what, text)
		}
	}
	code, stdout, stderr := servbench(t, "run", "test-oracle", "-w", "a", "-p", "recordcount=10", "-p", "operationcount=20", "-p", url,
		"-p", "label=as "+oraclePassword, "-o", filepath.Join(dir, "r.json"), "-p", "timeseries.file="+filepath.Join(dir, "t.csv"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	check("stdout", stdout)
	check("stderr", stderr)

	code, stdout, stderr = servbench(t, "run", "test-oracle", "-w", "a", "-p", "recordcount=10", "-p", "operationcount=20", "-p", url, "-p", "test-oracle.fail=true")
	if code == ExitOK || !strings.Contains(stderr, "ORA-12541") {
		t.Errorf("a failed connect: exit %d: %s", code, stderr)
	}
	check("a failed connect's stdout", stdout)
	check("a failed connect's stderr", stderr)

	pf := writePlan(t, "name: o\ndeployments: [{label: o, binding: test-oracle, properties: {test-oracle.url: 'scott/"+oraclePassword+"@127.0.0.1:1521/ORCL'}}]\n"+
		"workloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\ndepartures: [{what: \"connected as "+oraclePassword+"\", why: repeated}]\n")
	pdir := filepath.Join(dir, "plan")
	code, stdout, stderr = servbench(t, "bench", pf, "-o", pdir)
	if code != ExitOK {
		t.Fatalf("bench: exit %d: %s", code, stderr)
	}
	check("bench's stdout", stdout)
	check("bench's stderr", stderr)

	kdir := filepath.Join(dir, "kube")
	code, _, stderr = servbench(t, "run", "test-oracle", "-w", "a", "--clients", "2", "-threads", "2", "--orchestrator", "kubernetes",
		"-p", "kubernetes.claim=pvc", "-p", url, "--emit", kdir)
	if code != ExitOK {
		t.Fatalf("--emit: exit %d: %s", code, stderr)
	}
	secret := false
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if path == filepath.Join(kdir, "secret.yaml") {
			secret = strings.Contains(string(b), oraclePassword) // where the pods read it from
			return nil
		}
		check(path, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !secret {
		t.Error("the manifests' Secret lacks the password the pods need")
	}
}
