// Package cron runs hermes' scheduled jobs and makes them boring and
// visible: jobs and every run live in state.db (so nothing is lost on
// restart), fires missed while hermes was down are caught up or recorded
// "missed" by a per-job policy, every job has an explicit time zone
// (default UTC, never the server's), and only one scheduler per state.db
// fires, by holding a lease. The scheduler sleeps until the next fire;
// there is no polling tick.
//
// The scheduler, the cronjob tool and the hermes cron commands reach the
// jobs through JobStore. Store keeps them in state.db, in tables whose
// migrations are internal/sqlitedb's (schema_cron.go); cron/crontest is
// the conformance suite every JobStore passes.
package cron
