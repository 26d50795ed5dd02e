CREATE TABLE "usage_journal" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "usage_journal_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"team_id" text NOT NULL,
	"request_id" text NOT NULL,
	"record" text NOT NULL,
	"failed_at" timestamp with time zone,
	"error" text
);
