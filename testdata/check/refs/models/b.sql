SELECT * FROM ref('totls')
