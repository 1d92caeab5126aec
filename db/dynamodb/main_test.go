package dynamodb

import (
	"testing"

	"github.com/servbench/servbench/internal/testaws"
)

// TestMain keeps the tests from the machine's own AWS configuration
// (testaws.Main).
func TestMain(m *testing.M) { testaws.Main(m) }
