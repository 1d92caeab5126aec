package mongodb

import (
	"context"
	"fmt"

	"github.com/servbench/servbench/db"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Index creates the secondary index the studies used when asked:
// createIndex({"address.country": 1}) named query1.
func (s *Store) Index(ctx context.Context, table string, ix db.Index) (string, error) {
	if ix.Create {
		_, err := s.coll(table).Indexes().CreateOne(ctx, mongo.IndexModel{
			Keys:    bson.D{{Key: ix.Field, Value: 1}},
			Options: options.Index().SetName("query1"),
		})
		if err != nil {
			return "", wrap("create index on", ix.Field, err)
		}
	}
	note := fmt.Sprintf("native: createIndex({%q: 1})", ix.Field)
	if s.wrapArrays {
		note += `; arrays nested in arrays stored as {"items": [...]} (mongodb.nestedarrays=object)`
	}
	return note, nil
}

var idOnly = bson.D{{Key: "_id", Value: 1}}

// Query runs find({field: value}, {_id: 1}).skip(offset).limit(limit), the
// Altoros fork's query 1 (whole documents without the projection).
func (s *Store) Query(ctx context.Context, table string, q *db.Query, dst *db.RecordSet) error {
	opts := options.Find().SetSkip(int64(q.Offset)).SetLimit(int64(q.Limit))
	if !q.Documents {
		opts.SetProjection(idOnly)
	}
	cur, err := s.coll(table).Find(ctx, bson.D{{Key: q.Field, Value: q.Value}}, opts)
	if err != nil {
		return wrap("query", q.Value, err)
	}
	defer cur.Close(ctx)
	b := batches{cur: cur}
	for b.next(ctx) {
		r := dst.Next()
		if id, ok := cur.Current.Lookup("_id").StringValueOK(); ok {
			r.SetKey([]byte(id))
		}
		if q.Documents {
			if err := addDoc(r, cur.Current); err != nil {
				return fmt.Errorf("mongodb: query %s: %w", q.Value, err)
			}
		}
	}
	if err := b.Err(); err != nil {
		return wrap("query", q.Value, err)
	}
	return nil
}
