package redis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/servbench/servbench/props"
)

// formatReply writes an Admin command's reply. A reply of settings by name
// (CONFIG GET, ACL GETUSER) is written name=value, each pair apart, so
// that a setting whose name says a secret (requirepass, masterauth,
// tls-key-file-pass) is hidden, and known, as any name=value is; a list
// under such a name (ACL GETUSER's passwords) is hidden here, element by
// element. Anything else is written as fmt.Sprint writes it.
func formatReply(args []string, reply any) string {
	if !pairReply(args) {
		return fmt.Sprint(reply)
	}
	var names []string
	values := map[string]any{}
	switch r := reply.(type) {
	case map[string]any:
		for k, v := range r {
			names = append(names, k)
			values[k] = v
		}
		slices.Sort(names)
	case []any:
		if len(r)%2 != 0 {
			return fmt.Sprint(reply)
		}
		for i := 0; i < len(r); i += 2 {
			k, ok := r[i].(string)
			if !ok {
				return fmt.Sprint(reply)
			}
			names = append(names, k)
			values[k] = r[i+1]
		}
	default:
		return fmt.Sprint(reply)
	}
	out := make([]string, len(names))
	for i, k := range names {
		out[i] = k + "=" + replyValue(values[k], props.IsSecretKey(k))
	}
	return strings.Join(out, " ")
}

// pairReply reports whether the command's reply is settings by name.
func pairReply(args []string) bool {
	if len(args) < 2 {
		return false
	}
	cmd := strings.ToUpper(args[0] + " " + args[1])
	return cmd == "CONFIG GET" || cmd == "ACL GETUSER"
}

// replyValue writes one setting's value: quoted where a word would not
// hold it whole; a list's elements hidden if secret.
func replyValue(v any, secret bool) string {
	switch v := v.(type) {
	case string:
		if v == "" || strings.ContainsAny(v, " \t\r\n\"'\\;&|<>`=,") {
			return strconv.Quote(v)
		}
		return v
	case []any:
		if secret && len(v) > 0 {
			hidden := make([]string, len(v))
			for i := range hidden {
				hidden[i] = props.Redacted
			}
			return "[" + strings.Join(hidden, " ") + "]"
		}
	}
	return fmt.Sprint(v)
}
