-- Through ref(): by_status's WHERE still proves the key not null.
SELECT status, n FROM ref('by_status') WHERE n > 1
