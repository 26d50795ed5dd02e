CREATE TABLE "card_topups" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"member_id" text NOT NULL,
	"amount_micro" bigint NOT NULL,
	"session_id" text,
	"payment_intent_id" text,
	"state" text NOT NULL,
	"receipt_url" text,
	"ledger_id" text,
	"created_at_ms" bigint NOT NULL,
	"credited_at_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "stripe_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"received_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "card_topups_session" ON "card_topups" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "card_topups_team" ON "card_topups" USING btree ("team_id","created_at_ms");