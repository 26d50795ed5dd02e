CREATE TABLE "llm_model_upstream_health" (
	"model_id" text PRIMARY KEY NOT NULL,
	"consecutive_failures" integer NOT NULL,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"last_success_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "gpu_clusters" ADD COLUMN "retired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "retired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "llm_models" ADD COLUMN "upstream_key_sealed" text;--> statement-breakpoint
ALTER TABLE "llm_models" ADD COLUMN "upstream_key_set_at" timestamp with time zone;