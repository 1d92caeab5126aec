package wire

// ReadsAsSaid is readsAsSaid, for the tests of package wire_test.
var ReadsAsSaid = readsAsSaid
