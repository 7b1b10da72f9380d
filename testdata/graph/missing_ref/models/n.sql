SELECT * FROM ref('m')
