SELECT * FROM ref('self')
