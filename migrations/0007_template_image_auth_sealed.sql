ALTER TABLE "templates" ADD COLUMN "image_auth_enc" text DEFAULT '' NOT NULL;
-- Rows stored before this migration keep their clear image_auth until the app starts: it seals
-- them with its key (sealClearTemplateImageAuths in src/domain/compute/templates.ts).
