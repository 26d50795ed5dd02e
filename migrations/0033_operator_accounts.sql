CREATE TABLE "operator_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"person_id" text,
	"status" text NOT NULL,
	"granted_by" text NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"accepted_at_ms" bigint,
	"revoked_at_ms" bigint
);
--> statement-breakpoint
ALTER TABLE "operator_grants" ADD CONSTRAINT "operator_grants_person_id_persons_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."persons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "operator_grants_invited_email" ON "operator_grants" USING btree ("email") WHERE status = 'invited';--> statement-breakpoint
CREATE UNIQUE INDEX "operator_grants_active_person" ON "operator_grants" USING btree ("person_id") WHERE status = 'active';