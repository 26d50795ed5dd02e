CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"state" text NOT NULL,
	"due_at_ms" bigint NOT NULL,
	"lease_owner" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"singleton_key" text,
	"last_error" text,
	"created_at_ms" bigint NOT NULL,
	"updated_at_ms" bigint NOT NULL,
	"finished_at_ms" bigint
);
--> statement-breakpoint
CREATE INDEX "jobs_due" ON "jobs" USING btree ("name","due_at_ms") WHERE state in ('queued', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_singleton" ON "jobs" USING btree ("name","singleton_key") WHERE singleton_key is not null and state in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "jobs_state" ON "jobs" USING btree ("state","id");