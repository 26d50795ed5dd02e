CREATE TABLE "endpoint_logs" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"endpoint_id" text NOT NULL,
	"worker_id" text,
	"at_ms" bigint NOT NULL,
	"line" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "endpoint_workers" (
	"id" text PRIMARY KEY NOT NULL,
	"endpoint_id" text NOT NULL,
	"team_id" text NOT NULL,
	"spec_version" integer NOT NULL,
	"state" text NOT NULL,
	"state_error" text DEFAULT '' NOT NULL,
	"state_message" text DEFAULT '' NOT NULL,
	"state_since_ms" bigint NOT NULL,
	"address" text DEFAULT '' NOT NULL,
	"healthy" boolean DEFAULT false NOT NULL,
	"draining" boolean DEFAULT false NOT NULL,
	"ok_in_row" integer DEFAULT 0 NOT NULL,
	"fail_in_row" integer DEFAULT 0 NOT NULL,
	"meter_from_ms" bigint,
	"metered_seconds" bigint DEFAULT 0 NOT NULL,
	"metered_micro" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text,
	"key_id" text,
	"app_name" text NOT NULL,
	"state" text NOT NULL,
	"state_error" text DEFAULT '' NOT NULL,
	"state_message" text DEFAULT '' NOT NULL,
	"state_since_ms" bigint NOT NULL,
	"spec" jsonb NOT NULL,
	"spec_version" integer DEFAULT 1 NOT NULL,
	"product_name" text NOT NULL,
	"price_units_per_gpu_hour" bigint NOT NULL,
	"desired_workers" integer DEFAULT 0 NOT NULL,
	"next_reconcile_at_ms" bigint,
	"lease_until_ms" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "endpoint_logs_endpoint" ON "endpoint_logs" USING btree ("endpoint_id","seq");--> statement-breakpoint
CREATE INDEX "endpoint_logs_worker" ON "endpoint_logs" USING btree ("worker_id","seq");--> statement-breakpoint
CREATE INDEX "endpoint_workers_endpoint" ON "endpoint_workers" USING btree ("endpoint_id","id");--> statement-breakpoint
CREATE INDEX "endpoints_team_id" ON "endpoints" USING btree ("team_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "endpoints_team_app_name" ON "endpoints" USING btree ("team_id","app_name");--> statement-breakpoint
CREATE INDEX "endpoints_due" ON "endpoints" USING btree ("next_reconcile_at_ms");