// Package openapi turns the operations of an OpenAPI 3 document into
// declared http tools, so a team with an internal API gets its tools from
// one command (hermes tools import-openapi) instead of writing YAML by hand.
//
// Only the subset of OpenAPI needed for that is read, with the YAML library
// hermes already uses: a full OpenAPI library would add megabytes to the
// binary for features an importer never touches.
//
// The flow is Parse (JSON or YAML, 3.0.x or 3.1.x), Import (choose
// operations, build one declared.Spec per operation) and Marshal (YAML a
// person can read and edit, with a header comment).
//
// Local $refs are resolved inline; a recursive schema is cut where it
// repeats. An operation that cannot become a tool is skipped with a
// warning that says why: an external $ref ("other.yaml#/..."), a
// multipart or binary body, an arguments schema that does not compile.
// When that operation was named explicitly in Options.Include (by
// operationId or "METHOD /path"), Import fails instead: the caller asked
// for something that cannot be built.
package openapi
