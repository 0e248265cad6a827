package format

// COFFImportTypeName is coffImportTypeName for the package format_test
// tests.
var COFFImportTypeName = coffImportTypeName
