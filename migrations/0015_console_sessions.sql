CREATE TABLE "console_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"key_secret_hash" text,
	"operator_token_hash" text,
	"csrf_token" text NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"expires_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "console_sessions_expiry" ON "console_sessions" USING btree ("expires_at_ms");