CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text NOT NULL,
	"name" text NOT NULL,
	"secret_hash" text NOT NULL,
	"mask" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "budgets" (
	"scope" text NOT NULL,
	"subject_id" text NOT NULL,
	"team_id" text NOT NULL,
	"budget_type" text NOT NULL,
	"limit_units" bigint NOT NULL,
	"cycle" text,
	"set_at" timestamp with time zone NOT NULL,
	CONSTRAINT "budgets_scope_subject_id_pk" PRIMARY KEY("scope","subject_id")
);
--> statement-breakpoint
CREATE TABLE "fixed_term_bills" (
	"id" text PRIMARY KEY NOT NULL,
	"ledger_id" text NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text,
	"start_time_s" bigint NOT NULL,
	"end_time_s" bigint NOT NULL,
	"product_name" text NOT NULL,
	"product_category" text NOT NULL,
	"product_id" text NOT NULL,
	"owner_id" text NOT NULL,
	"trade_type" text NOT NULL,
	"billing_method" integer NOT NULL,
	"base_price_units" bigint NOT NULL,
	"bill_num" text NOT NULL,
	"price_precision" integer DEFAULT 1 NOT NULL,
	"storage_days" integer,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "key_policies" (
	"key_id" text PRIMARY KEY NOT NULL,
	"policy" jsonb NOT NULL,
	"updated_at_s" bigint NOT NULL,
	"updated_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount_micro" bigint DEFAULT 0 NOT NULL,
	"voucher_micro" bigint DEFAULT 0 NOT NULL,
	"cash_micro" bigint DEFAULT 0 NOT NULL,
	"debt_micro" bigint DEFAULT 0 NOT NULL,
	"category" text DEFAULT '' NOT NULL,
	"billing_method" integer DEFAULT 0 NOT NULL,
	"product_id" text DEFAULT '' NOT NULL,
	"product_name" text DEFAULT '' NOT NULL,
	"owner_id" text DEFAULT '' NOT NULL,
	"member_id" text,
	"key_id" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "llm_models" (
	"id" text PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"context_size" integer NOT NULL,
	"input_price_per_m_units" bigint NOT NULL,
	"output_price_per_m_units" bigint NOT NULL,
	"status" text NOT NULL,
	"upstream" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "members" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"phone" text DEFAULT '' NOT NULL,
	"remark_name" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quota_definitions" (
	"model" text NOT NULL,
	"quota_type" text NOT NULL,
	"modal" text NOT NULL,
	"product_type" text NOT NULL,
	"default_quota" bigint NOT NULL,
	"tiers" jsonb NOT NULL,
	"adjustable" boolean NOT NULL,
	CONSTRAINT "quota_definitions_model_quota_type_pk" PRIMARY KEY("model","quota_type")
);
--> statement-breakpoint
CREATE TABLE "quota_overrides" (
	"team_id" text NOT NULL,
	"model" text NOT NULL,
	"quota_type" text NOT NULL,
	"current_quota" bigint NOT NULL,
	CONSTRAINT "quota_overrides_team_id_model_quota_type_pk" PRIMARY KEY("team_id","model","quota_type")
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"tier" text DEFAULT 'T1' NOT NULL,
	"credit_limit_micro" bigint DEFAULT 0 NOT NULL,
	"cash_micro" bigint DEFAULT 0 NOT NULL,
	"voucher_micro" bigint DEFAULT 0 NOT NULL,
	"outstanding_micro" bigint DEFAULT 0 NOT NULL,
	"pending_micro" bigint DEFAULT 0 NOT NULL,
	"enabled_models" jsonb,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "budgets" ADD CONSTRAINT "budgets_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fixed_term_bills" ADD CONSTRAINT "fixed_term_bills_ledger_id_ledger_entries_id_fk" FOREIGN KEY ("ledger_id") REFERENCES "public"."ledger_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fixed_term_bills" ADD CONSTRAINT "fixed_term_bills_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_policies" ADD CONSTRAINT "key_policies_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_overrides" ADD CONSTRAINT "quota_overrides_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_secret_hash" ON "api_keys" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "api_keys_member" ON "api_keys" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "ftb_team_time" ON "fixed_term_bills" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_idem" ON "ledger_entries" USING btree ("team_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "ledger_team_time" ON "ledger_entries" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE INDEX "ledger_member_time" ON "ledger_entries" USING btree ("member_id","created_at");--> statement-breakpoint
CREATE INDEX "ledger_key_time" ON "ledger_entries" USING btree ("key_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "members_team_email" ON "members" USING btree ("team_id","email");