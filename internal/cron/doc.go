// Package cron runs hermes' scheduled jobs and makes them boring and
// visible: jobs and every run live in the database (so nothing is lost
// on restart), fires missed while hermes was down are caught up or
// recorded "missed" by a per-job policy, every job has an explicit time
// zone (default UTC, never the server's), and only one scheduler per
// database fires, by holding a lease; each fire is claimed by a
// compare-and-set, so it runs once even across replicas. The scheduler
// sleeps until the next fire; there is no polling tick.
//
// The scheduler, the cronjob tool and the hermes cron commands reach the
// jobs through JobStore. Store keeps them in state.db or in PostgreSQL
// (sqldb.DB), in tables whose migrations are schema_cron.go in
// internal/sqlitedb and internal/pgdb; cron/crontest is the conformance
// suite every JobStore passes, run on both.
package cron
