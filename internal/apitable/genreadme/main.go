// Command genreadme writes the README's endpoint tables from the endpoint
// tables of package apitable, between the README's two marker lines.
// go generate ./internal/apitable runs it; .ci/run runs it with -check,
// which changes nothing and fails when the README is out of date.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/apitwin/apitwin/internal/apitable"
)

const (
	begin = "<!-- BEGIN endpoint tables: generated from internal/apitable by go generate ./internal/apitable; do not edit -->"
	end   = "<!-- END endpoint tables -->"
)

func main() {
	readme := flag.String("readme", "README.md", "the README to write")
	check := flag.Bool("check", false, "change nothing; fail when the README is out of date")
	flag.Parse()
	if err := run(*readme, *check); err != nil {
		fmt.Fprintln(os.Stderr, "genreadme:", err)
		os.Exit(1)
	}
}

func run(path string, check bool) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	updated, err := replace(old, tables(apitable.Tables()))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(old, updated) {
		return nil
	}
	if check {
		return fmt.Errorf("%s: the endpoint tables are out of date: run go generate ./internal/apitable", path)
	}
	return os.WriteFile(path, updated, 0o644)
}

// replace puts body between the marker lines of readme.
func replace(readme, body []byte) ([]byte, error) {
	i := bytes.Index(readme, []byte(begin+"\n"))
	j := bytes.Index(readme, []byte("\n"+end))
	if i < 0 || j < i {
		return nil, fmt.Errorf("no lines %q and %q to write the endpoint tables between", begin, end)
	}
	var out bytes.Buffer
	out.Write(readme[:i+len(begin)+1])
	out.Write(body)
	out.Write(readme[j+1:])
	return out.Bytes(), nil
}

// tables writes each table as a collapsed Markdown table: the endpoint,
// linked to its docs when its table has any, and the client methods calling it or the reason none
// does.
func tables(ts []*apitable.Table) []byte {
	var b bytes.Buffer
	for _, t := range ts {
		withClient := 0
		for _, e := range t.Endpoints {
			if len(e.Client) > 0 {
				withClient++
			}
		}
		root := "the server's root"
		if t.Root != "" {
			root = "<code>" + t.Root + "</code>"
		}
		pkg := t.Client[strings.LastIndexByte(t.Client, '/')+1:]
		fake := t.Fake[strings.LastIndexByte(t.Fake, '/')+1:]
		fmt.Fprintf(&b, "<details>\n<summary><b>%s</b> (%s, under %s): %d endpoints, %d called by <code>%s</code>, all served by <code>%s</code></summary>\n\n",
			t.Name, t.Label, root, len(t.Endpoints), withClient, pkg, fake)
		b.WriteString("| endpoint | client method |\n|---|---|\n")
		for _, e := range t.Endpoints {
			methods := "none: " + e.Reason
			if len(e.Client) > 0 {
				methods = "`" + strings.Join(e.Client, "`, `") + "`"
			}
			endpoint := "`" + e.Endpoint() + "`"
			if e.Docs != "" {
				endpoint = "[" + endpoint + "](" + e.Docs + ")"
			}
			fmt.Fprintf(&b, "| %s | %s |\n", endpoint, strings.ReplaceAll(methods, "|", `\|`))
		}
		b.WriteString("\n</details>\n")
	}
	return b.Bytes()
}
