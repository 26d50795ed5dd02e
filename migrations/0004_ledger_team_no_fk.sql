ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_team_id_teams_id_fk";
