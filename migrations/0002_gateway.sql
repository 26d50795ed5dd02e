CREATE TABLE "usage_events" (
	"id" text PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text NOT NULL,
	"key_id" text NOT NULL,
	"model" text NOT NULL,
	"endpoint" text NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	"input_price_per_m_units" bigint NOT NULL,
	"output_price_per_m_units" bigint NOT NULL,
	"cost_micro" bigint NOT NULL,
	"ledger_id" text,
	"outcome" text NOT NULL,
	"duration_ms" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "usage_events_request" ON "usage_events" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "usage_events_team_time" ON "usage_events" USING btree ("team_id","created_at");