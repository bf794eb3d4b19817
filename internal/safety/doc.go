// Package safety decides whether a shell command the model asked for may run.
//
// Detection lives in package safety/shell, which reads a command the way a
// shell would and sorts it into hardline, dangerous and safe. The approval
// policy (Policy) turns that verdict into a decision: it asks a person
// through a Prompter, or an auxiliary model through a Judge in smart mode,
// remembers per-session and permanent grants, and explains every refusal to
// the model so it does not retry the same thing.
//
// The fronts build one Policy per process and supply its Prompter; the
// tool dispatcher asks it through a SessionApprover, which has the method
// set of tool.Approver. The other guards have packages of their own, for
// the packages that need only them: safety/netguard (URLs hermes fetches),
// safety/redact (secrets and prompt injection in text) and
// safety/writeguard (files the file tools write).
package safety
