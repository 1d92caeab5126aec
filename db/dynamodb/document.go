package dynamodb

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/servbench/servbench/db"
)

// Documents (Record.JSON) are stored with DynamoDB's own types: objects as
// maps (M), arrays as lists (L), numbers (N), booleans, null; strings (S)
// as for YCSB's values.

// attribute converts a field value to an attribute value.
func attribute(r *db.Record, v []byte) (types.AttributeValue, error) {
	if !r.JSON {
		return &types.AttributeValueMemberS{Value: string(v)}, nil
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, err
	}
	return fromJSON(x), nil
}

func fromJSON(x any) types.AttributeValue {
	switch x := x.(type) {
	case string:
		return &types.AttributeValueMemberS{Value: x}
	case json.Number:
		return &types.AttributeValueMemberN{Value: x.String()}
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}
	case []any:
		l := make([]types.AttributeValue, len(x))
		for i, e := range x {
			l[i] = fromJSON(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case map[string]any:
		m := make(map[string]types.AttributeValue, len(x))
		for k, e := range x {
			m[k] = fromJSON(e)
		}
		return &types.AttributeValueMemberM{Value: m}
	}
	return &types.AttributeValueMemberNULL{Value: true}
}

// appendJSON writes an attribute value as JSON (binary as base64 text,
// sets as arrays).
func appendJSON(dst []byte, v types.AttributeValue) []byte {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		b, _ := json.Marshal(v.Value)
		return append(dst, b...)
	case *types.AttributeValueMemberN:
		return append(dst, v.Value...)
	case *types.AttributeValueMemberBOOL:
		return strconv.AppendBool(dst, v.Value)
	case *types.AttributeValueMemberB:
		return strconv.AppendQuote(dst, base64.StdEncoding.EncodeToString(v.Value))
	case *types.AttributeValueMemberL:
		dst = append(dst, '[')
		for i, e := range v.Value {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e)
		}
		return append(dst, ']')
	case *types.AttributeValueMemberM:
		dst = append(dst, '{')
		i := 0
		for k, e := range v.Value {
			if i > 0 {
				dst = append(dst, ',')
			}
			i++
			dst = strconv.AppendQuote(dst, k)
			dst = append(dst, ':')
			dst = appendJSON(dst, e)
		}
		return append(dst, '}')
	case *types.AttributeValueMemberSS:
		b, _ := json.Marshal(v.Value)
		return append(dst, b...)
	case *types.AttributeValueMemberNS:
		dst = append(dst, '[')
		for i, n := range v.Value {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, n...)
		}
		return append(dst, ']')
	}
	return append(dst, "null"...)
}

// addItem adds an item's attributes but the key: YCSB's string (or
// binary) attributes as their bytes; an item with other types (a
// document) as JSON texts with dst.JSON set. The flattened copy of a
// queried field (see Index) is left out: it is not part of the document.
func (s *Store) addItem(dst *db.Record, item map[string]types.AttributeValue) error {
	doc := false
	for k, v := range item {
		switch v.(type) {
		case *types.AttributeValueMemberS, *types.AttributeValueMemberB:
		default:
			doc = doc || k != s.pk
		}
	}
	dst.JSON = doc
	for k, v := range item {
		if k == s.pk || (s.qix != nil && k == s.qix.attr) {
			continue
		}
		if doc {
			f := dst.Slot()
			f.Name = k
			f.Value = appendJSON(f.Value, v)
			continue
		}
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			dst.Add(k, []byte(v.Value))
		case *types.AttributeValueMemberB:
			dst.Add(k, v.Value)
		default:
			return fmt.Errorf("attribute %s has type %T", k, v)
		}
	}
	return nil
}
