CREATE TABLE "batch_lines" (
	"batch_id" text NOT NULL,
	"line" integer NOT NULL,
	"custom_id" text NOT NULL,
	"body" jsonb,
	"state" text NOT NULL,
	"result" jsonb,
	"updated_at_ms" bigint NOT NULL,
	CONSTRAINT "batch_lines_batch_id_line_pk" PRIMARY KEY("batch_id","line")
);
--> statement-breakpoint
CREATE TABLE "batches" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text NOT NULL,
	"key_id" text NOT NULL,
	"role" text NOT NULL,
	"endpoint" text NOT NULL,
	"input_file_id" text NOT NULL,
	"completion_window" text NOT NULL,
	"status" text NOT NULL,
	"model" text,
	"errors" jsonb,
	"output_file_id" text DEFAULT '' NOT NULL,
	"error_file_id" text DEFAULT '' NOT NULL,
	"metadata" jsonb,
	"version" integer DEFAULT 1 NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"completed" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"ended" integer DEFAULT 0 NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"updated_at_ms" bigint NOT NULL,
	"expires_at_ms" bigint NOT NULL,
	"in_progress_at_ms" bigint,
	"finalizing_at_ms" bigint,
	"completed_at_ms" bigint,
	"failed_at_ms" bigint,
	"expired_at_ms" bigint,
	"cancelling_at_ms" bigint,
	"cancelled_at_ms" bigint
);
--> statement-breakpoint
ALTER TABLE "llm_models" ADD COLUMN "batch_input_price_per_m_units" bigint;--> statement-breakpoint
ALTER TABLE "llm_models" ADD COLUMN "batch_output_price_per_m_units" bigint;--> statement-breakpoint
CREATE INDEX "batch_lines_state" ON "batch_lines" USING btree ("batch_id","state");--> statement-breakpoint
CREATE INDEX "batches_team_id" ON "batches" USING btree ("team_id","id");--> statement-breakpoint
CREATE INDEX "batches_open_expiry" ON "batches" USING btree ("expires_at_ms");