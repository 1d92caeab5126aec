package sink

import (
	"io"

	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// The result document (-o, result.file), JSON.
var jsonDef = Def{Name: "json", What: "the result", Properties: []string{"result.file"}, Read: func(p *props.Props) (Output, error) {
	if path := p.String("result.file", ""); path != "" {
		return &fileOutput{name: "json", what: "-o (result.file)", path: path, write: func(w io.Writer, e Ended) error {
			return result.WriteJSON(w, e.Doc)
		}}, nil
	}
	return nil, nil
}}
