SELECT user_id, url FROM ref('reformat') WHERE url <> ''
