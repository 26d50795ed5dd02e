CREATE TABLE "person_recovery_codes" (
	"person_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"used_at_ms" bigint,
	CONSTRAINT "person_recovery_codes_person_id_code_hash_pk" PRIMARY KEY("person_id","code_hash")
);
--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "totp_secret" text;--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "totp_pending_secret" text;--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "totp_enabled_at_ms" bigint;--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "person_recovery_codes" ADD CONSTRAINT "person_recovery_codes_person_id_persons_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."persons"("id") ON DELETE no action ON UPDATE no action;