CREATE TABLE "endpoint_metrics" (
	"endpoint_id" text NOT NULL,
	"minute_ms" bigint NOT NULL,
	"answered" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"samples" bigint DEFAULT 0 NOT NULL,
	"waiting_sum" bigint DEFAULT 0 NOT NULL,
	"waiting_peak" integer DEFAULT 0 NOT NULL,
	"running_sum" bigint DEFAULT 0 NOT NULL,
	"starting_sum" bigint DEFAULT 0 NOT NULL,
	"desired_sum" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "endpoint_metrics_endpoint_id_minute_ms_pk" PRIMARY KEY("endpoint_id","minute_ms")
);
--> statement-breakpoint
CREATE INDEX "endpoint_metrics_minute" ON "endpoint_metrics" USING btree ("minute_ms");