CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"endpoint_id" text,
	"url" text NOT NULL,
	"event" text NOT NULL,
	"body" text NOT NULL,
	"state" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_status_code" integer,
	"last_error" text,
	"last_latency_ms" integer,
	"last_attempt_at_ms" bigint,
	"next_attempt_at_ms" bigint,
	"created_at_ms" bigint NOT NULL,
	"updated_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"url" text NOT NULL,
	"events" jsonb NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"state" text NOT NULL,
	"disabled_reason" text,
	"disabled_at_ms" bigint,
	"failing_since_ms" bigint,
	"created_at_ms" bigint NOT NULL,
	"updated_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_marks" (
	"team_id" text NOT NULL,
	"mark" text NOT NULL,
	"created_at_ms" bigint NOT NULL,
	CONSTRAINT "webhook_marks_team_id_mark_pk" PRIMARY KEY("team_id","mark")
);
--> statement-breakpoint
CREATE TABLE "webhook_secrets" (
	"team_id" text PRIMARY KEY NOT NULL,
	"secret_sealed" text NOT NULL,
	"previous_sealed" text,
	"previous_until_ms" bigint,
	"created_at_ms" bigint NOT NULL,
	"rotated_at_ms" bigint
);
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint" ON "webhook_deliveries" USING btree ("endpoint_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_created" ON "webhook_deliveries" USING btree ("created_at_ms");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_team" ON "webhook_endpoints" USING btree ("team_id","id");