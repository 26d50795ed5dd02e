CREATE TABLE "member_key_budget_defaults" (
	"member_id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"budget_type" text NOT NULL,
	"limit_units" bigint NOT NULL,
	"cycle" text,
	"updated_at" timestamp with time zone NOT NULL,
	"updated_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member_policies" (
	"member_id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"policy" jsonb NOT NULL,
	"updated_at_s" bigint NOT NULL,
	"updated_by" text NOT NULL
);
